// A serverless plugin, before serverless-esbuild: while a package's artifacts are made, the
// process's temp folder is one of its own, removed after. serverless-esbuild stages each zip in a
// folder under os.tmpdir() and never removes it: its release removes the folder non-recursively,
// fails on the bundle it holds and swallows the error (floydspace/serverless-esbuild#589, no
// release fixes it). That was a folder per function per package (54 of them, 34 MB), 6 packages
// a test run. os.tmpdir() reads TMPDIR at each call, so the staging folders land in ours.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/** The prefix of the folder a package stages its zips in, under the temp folder it found. */
const STAGING_PREFIX = 'wallet-auth-zip-staging-';

/**
 * Points this process's temp folder (and its children's, started after) at a new folder under the
 * current one; the function it answers puts the old one back and removes the new one with all it holds.
 */
function useOwnTempFolder(prefix) {
  const before = process.env.TMPDIR;
  const folder = mkdtempSync(join(tmpdir(), prefix));
  process.env.TMPDIR = folder;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(folder, { recursive: true, force: true });
  };
}

class ZipStaging {
  constructor() {
    let release;
    const released = () => {
      release?.();
      release = undefined;
    };
    const stage = () => {
      released();
      release = useOwnTempFolder(STAGING_PREFIX);
    };
    // A package that fails half way ends the process: its staging goes with it.
    process.once('exit', released);
    this.hooks = {
      'before:package:createDeploymentArtifacts': stage,
      'after:package:createDeploymentArtifacts': released,
      'before:deploy:function:packageFunction': stage,
      'after:deploy:function:packageFunction': released,
    };
  }
}

module.exports = ZipStaging;
module.exports.STAGING_PREFIX = STAGING_PREFIX;
module.exports.useOwnTempFolder = useOwnTempFolder;
