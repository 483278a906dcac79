import { describe, expect, it } from "vitest";
import { deviceLabel } from "./user-agent";

describe("deviceLabel", () => {
  it("names the browser, its major version and the system", () => {
    expect(
      deviceLabel("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36"),
    ).toBe("Chrome 156 on Linux");
    expect(
      deviceLabel(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari 17 on iOS");
    expect(deviceLabel("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0")).toBe("Firefox 128 on Windows");
  });

  it("shows a script's product token, and says when there was no header", () => {
    expect(deviceLabel("curl/8.1.2")).toBe("curl/8.1.2");
    expect(deviceLabel(null)).toBe("unknown browser");
    expect(deviceLabel("")).toBe("unknown browser");
  });
});
