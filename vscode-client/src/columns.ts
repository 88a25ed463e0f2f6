/**
 * Where a RuleLens document (the rendered prompt, the memory status) opens: never a new
 * column squeezed in beside the others. Pure, so it is tested without VS Code.
 */

/**
 * The group that already shows the document, else the active group's neighbour (the one to
 * its right, then the one to its left) if there is one, else the active group itself.
 * `groups` are the open groups' view columns (1-based, in layout order).
 */
export function documentColumn(groups: readonly number[], active: number, holder?: number): number {
  if (holder !== undefined && groups.includes(holder)) return holder;
  if (groups.includes(active + 1)) return active + 1;
  if (groups.includes(active - 1)) return active - 1;
  return active;
}
