#!/usr/bin/env node
import { runCli } from './program';

void runCli(process.argv).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
