/** Test certificate authorities made now with openssl: a CA, and certificates it issues for servers and clients. */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type Pem = { key: string; cert: string };

function inTempDir<T>(fn: (file: (name: string) => string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eventrail-ca-"));
  try {
    return fn((name) => path.join(dir, name));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });

export function makeCa(name: string): Pem {
  return inTempDir((f) => {
    openssl([
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      f("key.pem"),
      "-out",
      f("cert.pem"),
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    return { key: fs.readFileSync(f("key.pem"), "utf8"), cert: fs.readFileSync(f("cert.pem"), "utf8") };
  });
}

/** A certificate `ca` issues: for a server on 127.0.0.1 / localhost, or for a client; valid `days` days (2). */
export function issue(ca: Pem, cn: string, use: "server" | "client", days = 2): Pem {
  return inTempDir((f) => {
    fs.writeFileSync(f("ca.key"), ca.key);
    fs.writeFileSync(f("ca.pem"), ca.cert);
    fs.writeFileSync(
      f("ext.cnf"),
      use === "server" ? "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n" : "extendedKeyUsage=clientAuth\n",
    );
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", f("key.pem"), "-out", f("req.csr"), "-subj", `/CN=${cn}`]);
    openssl([
      "x509",
      "-req",
      "-in",
      f("req.csr"),
      "-CA",
      f("ca.pem"),
      "-CAkey",
      f("ca.key"),
      "-CAcreateserial",
      "-out",
      f("cert.pem"),
      "-days",
      String(days),
      "-extfile",
      f("ext.cnf"),
    ]);
    return { key: fs.readFileSync(f("key.pem"), "utf8"), cert: fs.readFileSync(f("cert.pem"), "utf8") };
  });
}
