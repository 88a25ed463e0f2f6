import { beforeEach, describe, expect, it } from "vitest";
import { remember, type CommandRunner } from "../src/memoryCommands";
import { ServerCommands, type RememberPlan } from "../src/protocol";
import { HOME, REPO } from "./fixtures";
import { Uri, window, workspace } from "./stubs/vscode";

const WARNING = "A one-line note becomes a heading; the agent's search skips heading-only chunks — add a second line to make it findable";

/** A server that answers `rulelens.remember` like the real one: a plan for dry runs, else the append. */
class RememberServer implements CommandRunner {
  readonly calls: { command: string; args: any[] }[] = [];
  plan: RememberPlan = {
    path: `${HOME}/.grok/memory/demo/MEMORY.md`, text: "## Zeppelin hangar", note: "## Zeppelin hangar",
    sha256: "", searchable: false, warning: WARNING,
  };
  fail?: string;

  async executeCommand<R>(command: string, args: unknown[]): Promise<R | null> {
    this.calls.push({ command, args: args as any[] });
    if (this.fail) throw new Error(this.fail);
    const arg = (args as any[])[0];
    if (arg.dryRun) return this.plan as R;
    return { path: this.plan.path, text: this.plan.note, sha256: "cd".repeat(32) } as R;
  }
}

describe("RuleLens: Remember…", () => {
  let dialogs: { message: string; options: any; buttons: string[] }[];
  let errors: string[];
  let answer: string | undefined;

  beforeEach(() => {
    dialogs = [];
    errors = [];
    answer = "Append";
    workspace.workspaceFolders = [{ uri: Uri.file(REPO), name: "repo", index: 0 }];
    window.activeTextEditor = undefined;
    window.showInputBox = async () => "Zeppelin hangar";
    window.showQuickPick = async (items: any[]) => items.find((i) => i.scope === "workspace");
    window.showWarningMessage = async (message: string, options: any, ...buttons: string[]) => {
      dialogs.push({ message, options, buttons });
      return answer;
    };
    window.showInformationMessage = async () => undefined;
    window.showErrorMessage = async (message: string) => {
      errors.push(message);
      return undefined;
    };
  });

  it("previews the server's dry run, with its warning, then appends guarded by the dry run's hash", async () => {
    const server = new RememberServer();
    const result = await remember(server);
    expect(server.calls.map((c) => c.command)).toEqual([ServerCommands.remember, ServerCommands.remember]);
    const [dry, real] = server.calls.map((c) => c.args[0]);
    expect(dry).toEqual({ text: "Zeppelin hangar", scope: "workspace", workspaceUri: Uri.file(REPO).toString(), dryRun: true });
    expect(real).toEqual({ text: "Zeppelin hangar", scope: "workspace", workspaceUri: Uri.file(REPO).toString(), expectedSha256: "" });
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0].options.modal).toBe(true);
    expect(dialogs[0].options.detail).toBe(`## Zeppelin hangar\n\n⚠ ${WARNING}`);
    expect(dialogs[0].buttons).toEqual(["Append"]);
    expect(result?.text).toBe("## Zeppelin hangar");
  });

  it("shows no warning for a note the agent's search can find, and sends the file's hash", async () => {
    const server = new RememberServer();
    server.plan = { ...server.plan, text: "\n\n## Zeppelin hangar", sha256: "ef".repeat(32), searchable: true, warning: null };
    await remember(server);
    expect(dialogs[0].options.detail).toBe("## Zeppelin hangar");
    expect(server.calls[1].args[0].expectedSha256).toBe("ef".repeat(32));
  });

  it("writes nothing when the user cancels the confirmation", async () => {
    const server = new RememberServer();
    answer = undefined;
    expect(await remember(server)).toBeUndefined();
    expect(server.calls.map((c) => c.args[0].dryRun)).toEqual([true]);
  });

  it("turns a refused dry run into one error message and shows no dialog", async () => {
    const server = new RememberServer();
    server.fail = "/h/.grok/memory/MEMORY.md is not UTF-8; refusing to append to it";
    expect(await remember(server)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(server.calls).toHaveLength(1);
    expect(errors).toEqual(["RuleLens: the note cannot be saved: /h/.grok/memory/MEMORY.md is not UTF-8; refusing to append to it"]);
  });
});
