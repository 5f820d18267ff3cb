// Hostile: asks for 2 GiB, reads the server's files with cat, reaches for the
// network, then plays legally (bot.js). targets.txt holds the test's own targets: a
// path, or "host port" to connect to. It prints to stderr what it got: ALLOCATED, READ,
// CONNECTED, or "cannot ...".
"use strict";
const { execFileSync } = require("child_process");
const fs = require("fs");
const net = require("net");

const say = text => process.stderr.write(text + "\n");
try {
  const block = Buffer.alloc(2 * 2 ** 30);
  say(`ALLOCATED ${block.length >> 30} GiB`);
} catch (error) {
  say(`cannot allocate 2 GiB: ${error.message}`);
}
const targets = ["/etc/shadow", "/etc/passwd", "/proc/1/root/etc/shadow", "example.com 80"];
if (fs.existsSync("targets.txt")) {
  targets.push(...fs.readFileSync("targets.txt", "utf8").split("\n").filter(Boolean));
}
for (const target of targets) {
  const [host, port] = target.split(" ");
  if (port) {
    net.connect({ host, port: Number(port) })
      .on("connect", () => say(`CONNECTED ${host}:${port}`))
      .on("error", error => say(`cannot connect to ${host}:${port}: ${error.code}`));
    continue;
  }
  try {
    say(`READ ${target}: ${execFileSync("/bin/cat", [target], { stdio: "pipe" })}`);
  } catch (error) {
    say(`cannot read ${target}: ${String(error.stderr).trim()}`);
  }
}
require("./bot.js");
