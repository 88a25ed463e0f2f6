import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `vscode` exists only inside the editor; unit tests get a small stand-in with the few
// classes the tree code touches (EventEmitter, TreeItem, ThemeIcon, Uri, window, workspace).
export default defineConfig({
  resolve: { alias: { vscode: fileURLToPath(new URL("./test/stubs/vscode.ts", import.meta.url)) } },
  test: { include: ["test/**/*.test.ts"], environment: "node" },
});
