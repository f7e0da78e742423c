#!/usr/bin/env node
// Writes oclif.manifest.json at the repository root after `tsc -b` (part of `npm run build`): the command ids, flags and
// args of packages/cli/dist/commands, which @oclif/core otherwise rebuilds on every start by importing every command
// module (and with them vega for `report`, csv-parse for `calibrate`, ...). With the manifest, `hpt-bench run` imports
// only the run command. The file is generated (gitignored), so it can never drift from the compiled commands as long as
// the build runs this script. Uses @oclif/core's own Plugin loader, the same one the `oclif manifest` tool uses.
import 'reflect-metadata';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = new URL('../oclif.manifest.json', import.meta.url);
rmSync(file, { force: true });
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(file, `${JSON.stringify(plugin.manifest, null, 1)}\n`);
process.stdout.write(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands\n`);
