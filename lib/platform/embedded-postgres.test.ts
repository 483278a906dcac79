import { describe, expect, it } from "vitest";
import { embeddedPostgresSettings } from "./embedded-postgres";

const GB = 1024 ** 3;

describe("embeddedPostgresSettings", () => {
  it("gives shared buffers a quarter of the machine's memory, between 128 MB and 8 GB", () => {
    expect(embeddedPostgresSettings(24 * GB)).toContain("shared_buffers=6144MB");
    expect(embeddedPostgresSettings(2 * GB)).toContain("shared_buffers=512MB");
    expect(embeddedPostgresSettings(256 * 1024 ** 2)).toContain("shared_buffers=128MB");
    expect(embeddedPostgresSettings(128 * GB)).toContain("shared_buffers=8192MB");
  });

  it("spaces checkpoints 15 minutes apart, with room for the WAL in between", () => {
    expect(embeddedPostgresSettings(4 * GB)).toEqual(expect.arrayContaining(["checkpoint_timeout=15min", "max_wal_size=8192MB"]));
  });

  it("gives the WAL between checkpoints 8 GB, or a tenth of the data directory's disk when that is less, at least 1 GB", () => {
    expect(embeddedPostgresSettings(4 * GB, 256 * GB)).toContain("max_wal_size=8192MB");
    expect(embeddedPostgresSettings(4 * GB, 40 * GB)).toContain("max_wal_size=4096MB");
    expect(embeddedPostgresSettings(4 * GB, 5 * GB)).toContain("max_wal_size=1024MB");
  });
});
