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

class ZipStaging {
  constructor() {
    let staging;
    let before;
    const release = () => {
      if (!staging) return;
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(staging, { recursive: true, force: true });
      staging = undefined;
    };
    const stage = () => {
      release();
      before = process.env.TMPDIR;
      staging = mkdtempSync(join(tmpdir(), STAGING_PREFIX));
      process.env.TMPDIR = staging;
    };
    // A package that fails half way ends the process: its staging goes with it.
    process.once('exit', release);
    this.hooks = {
      'before:package:createDeploymentArtifacts': stage,
      'after:package:createDeploymentArtifacts': release,
      'before:deploy:function:packageFunction': stage,
      'after:deploy:function:packageFunction': release,
    };
  }
}

module.exports = ZipStaging;
module.exports.STAGING_PREFIX = STAGING_PREFIX;
