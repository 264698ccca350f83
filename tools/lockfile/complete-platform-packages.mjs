#!/usr/bin/env node
// The package registry reachable here serves only the linux-x64 builds of packages that ship one native
// package per platform (nx, biome, rollup). `npm install` then leaves the other platforms' optional
// dependencies out of package-lock.json, and `npm ci` refuses the lock as out of sync. This adds the entries
// a lock written against the full registry would have, marked with their os/cpu, so `npm ci` skips them on
// this platform and installs them elsewhere. Run it after every `npm install`.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'openbsd', 'openharmony', 'win32', 'linux'];
const CPU = [
  ['arm64', 'arm64'],
  ['aarch64', 'arm64'],
  ['x64', 'x64'],
  ['ia32', 'ia32'],
  ['loong64', 'loong64'],
  ['ppc64', 'ppc64'],
  ['riscv64', 'riscv64'],
  ['s390x', 's390x'],
  ['arm', 'arm'],
];

function platformOf(name) {
  const base = name.split('/').pop();
  const os = OS.find((o) => base.includes(`-${o}-`) || base.endsWith(`-${o}`));
  const cpu = CPU.find(([token]) => new RegExp(`(^|-)${token}(-|$)`).test(base))?.[1];
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (base.includes('musl') ? ['musl'] : ['glibc']) : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const nested = `${path}/node_modules/${dep}`;
    if (packages[key] || packages[nested]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[key] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(`${file}.tmp`, `${JSON.stringify(lock, null, 2)}\n`);
renameSync(`${file}.tmp`, file);
process.stdout.write(`added ${added} platform package entries to ${file}\n`);
