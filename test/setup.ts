// Loaded before every test file: tsyringe needs the Reflect metadata polyfill first (specs/deps.md).
import 'reflect-metadata';
