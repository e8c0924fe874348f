// A serverless plugin, after serverless-esbuild: every function's bundle comes from one esbuild
// build with an entry point per function (no code splitting), in place of serverless-esbuild's one
// build per function. esbuild then reads and parses each module (the AWS SDK, middy, lib/) once
// rather than once per function: about 18 CPU-seconds for the 55 handlers instead of about 69 one
// after another, and 121 side by side on 2 cores (docs/performance.md). The bundles are the same
// files byte for byte (tests/deploy/bundle-contents.test.ts); their zips and everything after the
// bundle stay serverless-esbuild's.
const esbuild = require('esbuild');

/** serverless-esbuild's own options in custom.esbuild, which esbuild would refuse (its bundle.js strips the same). */
const PLUGIN_OPTIONS = [
  'concurrency',
  'zipConcurrency',
  'exclude',
  'nativeZip',
  'packager',
  'packagePath',
  'watch',
  'keepOutputDirectory',
  'packagerOptions',
  'installExtraArgs',
  'outputFileExtension',
  'outputBuildFolder',
  'outputWorkFolder',
  'nodeExternals',
  'skipBuild',
  'skipRebuild',
  'skipBuildExcludeFns',
  'stripEntryResolveExtensions',
  'disposeContext',
];

/**
 * The bundle serverless-esbuild makes of a handler or its file, as its build folder and zip hold it:
 * functions/x.handler (or functions/x.ts) → functions/x.mjs.
 */
const bundleOf = (handlerOrEntry, extension) => `${handlerOrEntry.slice(0, handlerOrEntry.lastIndexOf('.'))}${extension}`;

/** What serverless-esbuild's bundle() leaves on the plugin: each entry's bundle, and each function's. */
async function bundleAll(plugin) {
  plugin.prepare();
  const options = plugin.buildOptions;
  const extension = options.outputFileExtension;
  const entries = [...new Set(plugin.functionEntries.map(({ entry }) => entry))];
  if (!plugin.oneBuild) {
    const esbuildOptions = Object.fromEntries(Object.entries(options).filter(([name]) => !PLUGIN_OPTIONS.includes(name)));
    const exclude = [options.exclude ?? []].flat();
    const config = {
      ...esbuildOptions,
      external: [...[options.external ?? []].flat(), ...(exclude.includes('*') ? [] : exclude)],
      plugins: plugin.plugins,
      ...(extension !== '.js' ? { outExtension: { '.js': extension } } : {}),
      entryPoints: entries,
      // functions/x.ts → <build folder>/functions/x.mjs, where a build of its own puts it.
      outdir: plugin.buildDirPath,
      outbase: plugin.serviceDirPath,
    };
    // A rebuild (serverless-esbuild's watch under serverless-offline) goes through this one context.
    plugin.oneBuild = options.skipRebuild ? { rebuild: () => esbuild.build(config) } : await esbuild.context(config);
  }
  const result = await plugin.oneBuild.rebuild();
  // The context is kept by the first entry only, so that serverless-esbuild disposes of it once.
  plugin.buildCache = Object.fromEntries(
    entries.map((entry, index) => [
      entry,
      { bundlePath: bundleOf(entry, extension), entry, result, context: index === 0 && !options.skipRebuild ? plugin.oneBuild : undefined },
    ]),
  );
  plugin.buildResults = plugin.functionEntries
    .filter(({ func }) => func !== null)
    .map(({ entry, func, functionAlias }) => ({ bundlePath: bundleOf(entry, extension), func, functionAlias }));
}

class OneBuild {
  constructor(serverless) {
    const plugin = serverless.pluginManager.plugins.find((candidate) => candidate.constructor?.name === 'EsbuildServerlessPlugin');
    if (!plugin) throw new Error('serverless/one-build.cjs must come after serverless-esbuild in serverless.yml plugins');
    plugin.bundle = () => bundleAll(plugin);
    this.hooks = {};
  }
}

module.exports = OneBuild;
module.exports.PLUGIN_OPTIONS = PLUGIN_OPTIONS;
module.exports.bundleOf = bundleOf;
