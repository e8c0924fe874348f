// esbuild plugins for the function bundles (serverless.yml, custom.esbuild.plugins).
const { readFileSync } = require('node:fs');

/**
 * libphonenumber-js ships its numbering plan as a JavaScript object literal (metadata.max.json.js,
 * 150 KB), which V8 must parse in full at import; the same data as one string handed to
 * JSON.parse costs about a third less CPU at every cold start (docs/performance.md). The object
 * is the same: it is read from the JSON file the package ships beside it.
 */
const phoneMetadataAsJson = {
  name: 'phone-metadata-as-json',
  setup(build) {
    build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]metadata\.[a-z]+\.json\.js$/ }, (args) => {
      const json = readFileSync(args.path.replace(/\.js$/, ''), 'utf8');
      return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(json)))});`, loader: 'js' };
    });
  },
};

module.exports = [phoneMetadataAsJson];
