/**
 * A small stand-in for the `vscode` module: just enough real behaviour (events fire, URIs
 * parse, tree items carry their fields) for the tree provider to run outside the editor, and
 * replaceable dialogs for the commands that ask the user.
 */
import * as path from "node:path";

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown) => Disposable;

export class EventEmitter<T> {
  private listeners = new Set<(e: T) => unknown>();
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(readonly scheme: string, readonly path: string, readonly query = "") {}
  static file(p: string): Uri {
    return new Uri("file", path.resolve(p));
  }
  static parse(s: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/[^/]*)?([^?]*)(?:\?(.*))?$/i.exec(s);
    if (!m) throw new Error(`bad uri ${s}`);
    return new Uri(m[1], decodeURIComponent(m[2]), m[3] ?? "");
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    const p = this.path.split("/").map(encodeURIComponent).join("/");
    return this.scheme === "file" ? `file://${p}` : `${this.scheme}:${p}${this.query ? "?" + this.query : ""}`;
  }
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  contextValue?: string;
  iconPath?: ThemeIcon;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

/** A replaceable UI call: tests assign their own answers (a dialog's button, a pick). */
type Ui = (...args: any[]) => Promise<any>;
const none: Ui = async () => undefined;

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

/** The progress a task reports (replace `window.withProgress` to watch it). */
export interface Progress {
  report(value: { message?: string; increment?: number }): void;
}

export const window = {
  /** Runs the task at once, as the editor does after showing the notification. */
  withProgress: async <T>(_options: { location: ProgressLocation; title?: string },
    task: (progress: Progress) => Promise<T>): Promise<T> => task({ report: () => undefined }),
  activeTextEditor: undefined as unknown,
  visibleTextEditors: [] as { document: { uri: Uri } }[],
  showInputBox: none,
  showQuickPick: none,
  showWarningMessage: none,
  showInformationMessage: none,
  showErrorMessage: none,
  showTextDocument: none,
};

type Folder = { uri: Uri; name: string; index: number };

export const workspace = {
  workspaceFolders: [] as Folder[],
  getWorkspaceFolder: (uri: Uri): Folder | undefined =>
    workspace.workspaceFolders.find((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + "/")),
};
