-- Headless end-to-end driver for the RuleLens Neovim plugin (same file for 0.7.2 and 0.11).
-- Usage: timeout -k 5 120 nvim --headless -u NONE -i NONE -n -c "luafile driver.lua"
-- Env: RULELENS_PLUGIN (the nvim/ dir), RULELENS_CMD (JSON list), WS (repo), OUT (json)
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local ws, results, step = H.ws, H.results, H.step
local sidebar_lines, sidebar_has = H.sidebar_lines, H.sidebar_has

local function lens_titles(bufnr)
  local out = {}
  for _, l in ipairs(vim.lsp.codelens.get(bufnr)) do
    if l.command then table.insert(out, l.command.title) end
  end
  return out
end

local ok, err = pcall(function()
  vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
  local rulelens = require("rulelens")
  rulelens.setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")) })
  results.version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)

  vim.cmd("edit " .. ws .. "/src/app/handlers/orders.py")
  local bufnr = vim.api.nvim_get_current_buf()
  H.attached(rulelens, bufnr)
  step("attached")
  results.workspace_folders = rulelens.get_clients(bufnr)[1].workspace_folders

  assert(vim.wait(15000, function()
    rulelens.refresh_lenses(bufnr)
    vim.wait(300, function() return #lens_titles(bufnr) > 0 end, 20)
    return #lens_titles(bufnr) > 0
  end, 100), "no code lenses")
  results.lenses = lens_titles(bufnr)
  -- The line-0 hover now, before anything on disk changes: the same counts as the lens.
  for _, answer in pairs(vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 0, character = 0 },
  }, 15000) or {}) do
    if answer.result and answer.result.contents then results.first_hover = answer.result.contents.value end
  end
  step("lenses")

  -- The default sidebar: every enabled agent, under the lens's headline, same start dir.
  vim.cmd("RuleLensChain")
  assert(vim.wait(15000, function() return sidebar_has("sessions start in") end, 50),
    "the default sidebar shows no per-agent headline")
  results.default_sidebar = sidebar_lines()
  -- Grok's chain for a session started in the file's own folder: an explicit view.
  vim.cmd("RuleLensChain here")
  assert(vim.wait(10000, function() return sidebar_has("Loaded (") end, 50), "sidebar empty")
  results.sidebar = sidebar_lines()
  results.windows = #vim.api.nvim_list_wins()
  step("sidebar")

  -- <CR> on the src/AGENTS.md entry opens it in the source window; the sidebar follows.
  local s = require("rulelens.sidebar")._state
  local target
  for i, l in ipairs(sidebar_lines()) do
    if l:find(" src/AGENTS.md", 1, true) then target = i break end
  end
  assert(target, "no src/AGENTS.md entry")
  local side_win
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == s.buf then side_win = w end
  end
  vim.api.nvim_set_current_win(side_win)
  vim.api.nvim_win_set_cursor(side_win, { target, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  results.opened = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
  assert(vim.wait(10000, function() return sidebar_has("Loaded (6)") end, 50),
    "sidebar did not follow the buffer change")
  results.followed = sidebar_lines()
  local agents_buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(15000, function()
    rulelens.refresh_lenses(agents_buf)
    vim.wait(300, function() return #lens_titles(agents_buf) >= 1 end, 20)
    return #lens_titles(agents_buf) >= 1
  end, 100), "no rule-file lens")
  results.rule_lenses = lens_titles(agents_buf)
  step("followed")

  -- A .gitignore edit on disk: rulelens/chainChanged refreshes the sidebar.
  vim.wait(500)
  local gi = ws .. "/.gitignore"
  local lines = vim.fn.readfile(gi)
  local kept = {}
  for _, l in ipairs(lines) do if l ~= "CLAUDE.local.md" then table.insert(kept, l) end end
  vim.fn.writefile(kept, gi)
  assert(vim.wait(20000, function() return sidebar_has("Loaded (7)") end, 50),
    "sidebar did not follow rulelens/chainChanged")
  results.after_change = sidebar_lines()
  step("chainChanged")

  -- :RuleLensChain all on the deep file: every agent's view, each naming its start directory.
  vim.cmd("buffer " .. bufnr)
  vim.cmd("RuleLensChain all")
  assert(vim.wait(15000, function() return sidebar_has("Laravel Boost — start directory") end, 50),
    ":RuleLensChain all showed no per-agent views")
  -- Each agent's last recorded session is computed in the background; rulelens/chainChanged
  -- refreshes the sidebar once it is in: Codex's matches, Claude Code's (stale) differs.
  assert(vim.wait(60000, function()
    return sidebar_has("last session: ✓ matches your Codex CLI session")
      and sidebar_has("last session: ⚠ differs: ")
  end, 50), "the sidebar never showed the last sessions' verdicts")
  results.agents_sidebar = sidebar_lines()
  -- :RuleLensChain completes what the server's registry lists (rulelens/agents), and `all`.
  results.complete = require("rulelens.sidebar").complete()
  vim.cmd("RuleLensChain claude")
  assert(vim.wait(15000, function()
    return sidebar_has("Claude Code — start directory") and not sidebar_has("Codex CLI")
  end, 50), ":RuleLensChain claude did not switch to one agent")
  results.claude_sidebar = sidebar_lines()
  step("agents")

  -- The line-0 hover reads as a list (hoverFormat "list"), not as Markdown pipes.
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 0, character = 0 },
  }, 15000) or {}
  for _, answer in pairs(answers) do
    if answer.result and answer.result.contents then results.hover = answer.result.contents.value end
  end
  assert(results.hover, "no hover")
  step("hover")
end)
H.report(ok, err)
