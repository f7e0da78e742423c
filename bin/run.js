#!/usr/bin/env node
// hpt-bench CLI entry (oclif). reflect-metadata must load before any decorated class (tsyringe).
import 'reflect-metadata';
import { execute } from '@oclif/core/execute';

await execute({ dir: import.meta.url });
