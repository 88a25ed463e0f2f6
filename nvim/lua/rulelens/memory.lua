-- Memory commands for Neovim (0.7.2 .. 0.11), over the RuleLens server:
--   :RuleLensMemory [query]        search the agent's memory; a picker (Telescope or fzf-lua
--                                  when installed, else vim.ui.select) with the VS Code quick
--                                  pick's columns; <CR> opens the file at the chunk's lines
--   :RuleLensMemoryRank [agent|best]  toggle (or set) the ranking: the agent's own (default)
--                                  or `best` (for people)
--   :RuleLensMemoryExplain [query] a read-only buffer: every result with why it ranked there
--   :RuleLensRemember [text]       preview the exact text, choose the scope, confirm, write
--   :RuleLensMemoryStatus          which store the agent uses and why, roots, index, dream
--   :RuleLensMemoryContext [query] the first-turn <memory-context> block, read-only
local M = {}

local plugin -- the rulelens module (set by setup)
M.rank = "agent"
M.sources = { "memory" }

function M.setup(mod)
  plugin = mod
  local cfg = mod.config.memory or {}
  M.rank = cfg.rank or "agent"
  M.sources = cfg.sources or { "memory" }
end

local function client_and_ws()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = plugin.get_clients(bufnr)[1] or plugin.get_clients()[1]
  if not client then
    vim.notify("RuleLens: no server attached (open a file in the workspace first)",
      vim.log.levels.WARN)
    return nil
  end
  local root = client.config.root_dir or vim.fn.getcwd()
  return client, vim.uri_from_fname(root), root
end

local function call(method, params, cb)
  local client = client_and_ws()
  if not client then return end
  plugin.request(client, method, params, function(err, result)
    vim.schedule(function()
      if err then
        vim.notify("RuleLens: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
        return
      end
      cb(result)
    end)
  end)
end

local function rel(path, root)
  if root and path:sub(1, #root + 1) == root .. "/" then return path:sub(#root + 2) end
  return vim.fn.fnamemodify(path, ":~")
end

--- The snippet's line with the most query keywords (the VS Code quick pick's detail).
function M.matched_line(snippet, keywords)
  local best, best_n, first_plain = nil, -1, nil
  for line in (snippet .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("%S") and not line:match("^%[Context: ") then
      if not first_plain and not line:match("^%s*#") then first_plain = line end
      local low, n = line:lower(), 0
      for _, k in ipairs(keywords or {}) do
        if low:find(k:lower(), 1, true) then n = n + 1 end
      end
      if n > best_n then best, best_n = line, n end
    end
  end
  if best_n <= 0 then best = first_plain or best or "" end
  return vim.trim(best or "")
end

--- One picker row: score first, relative file:lines, flags, the matched sentence.
function M.format_item(item, keywords, root)
  local flags = {}
  if item.source == "transcript" then
    table.insert(flags, "transcript · not searched by the agent")
  else
    table.insert(flags, item.source)
    table.insert(flags, item.agent_returns and "agent" or "editor only")
  end
  if item.superseded_by and item.superseded_by ~= vim.NIL then table.insert(flags, "superseded") end
  if item.injected_first_turn then table.insert(flags, "first turn") end
  return string.format("%.2f  %s:%d-%d  [%s]  %s", item.score or 0,
    rel(item.path, root), item.start_line, item.end_line, table.concat(flags, ", "),
    M.matched_line(item.snippet or "", keywords))
end

--- Flatten a search answer to picker items (memory results, then transcript turns).
function M.items(result)
  local out = {}
  for _, r in ipairs(result.results or {}) do table.insert(out, r) end
  for _, t in ipairs(result.transcripts or {}) do table.insert(out, t) end
  return out
end

function M.open_item(item)
  if not item then return end
  vim.cmd("edit " .. vim.fn.fnameescape(item.path))
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_win_set_cursor(0, { math.max(1, math.min(item.start_line, last)), 0 })
  vim.cmd("normal! zz")
end

local function pick(items, keywords, root, title)
  local labels = {}
  for i, it in ipairs(items) do labels[i] = M.format_item(it, keywords, root) end
  local ok_t, pickers = pcall(require, "telescope.pickers")
  if ok_t and M.use_telescope ~= false then
    local finders = require("telescope.finders")
    local conf = require("telescope.config").values
    local actions = require("telescope.actions")
    local state = require("telescope.actions.state")
    pickers.new({}, {
      prompt_title = title,
      finder = finders.new_table({ results = items, entry_maker = function(it)
        local label = M.format_item(it, keywords, root)
        return { value = it, display = label, ordinal = label }
      end }),
      sorter = conf.generic_sorter({}),
      attach_mappings = function(bufnr)
        actions.select_default:replace(function()
          actions.close(bufnr)
          M.open_item(state.get_selected_entry().value)
        end)
        return true
      end,
    }):find()
    return
  end
  local ok_f, fzf = pcall(require, "fzf-lua")
  if ok_f and M.use_fzf ~= false then
    fzf.fzf_exec(labels, { prompt = title .. "> ", actions = { ["default"] = function(sel)
      for i, l in ipairs(labels) do if l == sel[1] then M.open_item(items[i]) end end
    end } })
    return
  end
  vim.ui.select(items, { prompt = title, format_item = function(it)
    return M.format_item(it, keywords, root)
  end }, function(choice) M.open_item(choice) end)
end

function M.search(query, opts)
  opts = opts or {}
  if not query or query == "" then
    vim.ui.input({ prompt = "RuleLens memory search: " }, function(q)
      if q and q ~= "" then M.search(q, opts) end
    end)
    return
  end
  local _, ws, root = client_and_ws()
  if not ws then return end
  local params = { query = query, workspaceUri = ws, all = true }
  if M.rank ~= "agent" then params.rank = M.rank end
  if #M.sources ~= 1 or M.sources[1] ~= "memory" then params.sources = M.sources end
  if opts.explain then params.explain = true end
  call("rulelens/memorySearch", params, function(result)
    M.last = result
    if opts.explain then return M.show_explain(result, root) end
    local items = M.items(result)
    if #items == 0 then
      vim.notify("RuleLens: no memory results for " .. query, vim.log.levels.INFO)
      return
    end
    pick(items, result.keywords, root, "RuleLens memory (" .. M.rank .. ")")
  end)
end

local function scratch(name, lines, ft)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  if ft then vim.bo[buf].filetype = ft end
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.keymap.set("n", "q", "<cmd>close<CR>", { buffer = buf })
  return buf
end

local function num(v, fmt)
  if v == nil or v == vim.NIL then return "-" end
  return string.format(fmt or "%.2f", v)
end

function M.explain_lines(result, root)
  local lines = { "RuleLens memory · " .. (result.query or "") .. " · rank " .. (result.rank or "agent"), "" }
  for i, r in ipairs(result.results or {}) do
    table.insert(lines, string.format("%2d. %s", i, M.format_item(r, result.keywords, root)))
    local e = r.explain or {}
    local a = e.agent or e
    if e.coverage ~= nil then
      table.insert(lines, string.format("    best: bm25 %s (#%s), coverage %s, cosine %s -> %s; %s",
        num(e.bm25), num(e.bm25_rank, "%d"), num(e.coverage), num(e.cosine), num(e.base, "%.3f"),
        e.cutoff or ""))
    end
    if a and a ~= vim.NIL and a.merged ~= nil then
      table.insert(lines, string.format(
        "    agent: keyword %s (#%s), vector %s, merged %s, decay %s (age %s d, half-life %s d),"
        .. " source weight %s, access %s = %s vs min_score %s, MMR #%s -> #%s",
        num(a.keyword_score), num(a.keyword_rank, "%d"), num(a.vector_similarity), num(a.merged),
        num(a.decay), num(a.age_days, "%.1f"), num(a.half_life_days, "%g"), num(a.source_weight, "%g"),
        num(a.access_boost), num(a.display), num(a.min_score), num(a.rank_before_mmr, "%d"),
        num(a.rank_after_mmr, "%d")))
    end
    local why = e.why_not or (a ~= vim.NIL and a and a.why_not)
    if why and why ~= vim.NIL then table.insert(lines, "    " .. why) end
  end
  for _, w in ipairs(result.warnings or {}) do table.insert(lines, "warning: " .. w) end
  return lines
end

function M.show_explain(result, root)
  return scratch("RuleLens memory explain", M.explain_lines(result, root))
end

function M.set_rank(rank)
  if rank == nil or rank == "" then rank = (M.rank == "agent") and "best" or "agent" end
  if rank ~= "agent" and rank ~= "best" then
    vim.notify("RuleLens: rank is agent or best", vim.log.levels.ERROR)
    return
  end
  M.rank = rank
  vim.notify("RuleLens memory ranking: " .. rank, vim.log.levels.INFO)
end

function M.status()
  local _, ws = client_and_ws()
  if not ws then return end
  call("rulelens/memoryStatus", { workspaceUri = ws }, function(st)
    local lines = { "RuleLens memory status", "",
      "agent:         " .. tostring(st.agent),
      "store:         " .. tostring(st.store and st.store.reason),
      "workspace:     " .. tostring(st.cwd),
      "memory name:   " .. tostring(st.workspace_name),
      "global dir:    " .. vim.fn.fnamemodify(st.global_dir, ":~"),
      "workspace dir: " .. vim.fn.fnamemodify(st.workspace_dir, ":~"),
      string.format("index:         %d chunk(s), %d vector(s), %d file(s) stale", st.chunks or 0,
        st.vectors or 0, #(st.stale_files or {})), "", "files:" }
    for _, f in ipairs(st.files or {}) do
      table.insert(lines, string.format("  %-9s %8d B  %s", f.source, f.bytes,
        vim.fn.fnamemodify(f.path, ":~")))
    end
    for _, n in ipairs((st.store and st.store.notes) or {}) do table.insert(lines, "note: " .. n) end
    M.status_buf = scratch("RuleLens memory status", lines)
  end)
end

function M.context(query)
  local _, ws = client_and_ws()
  if not ws then return end
  call("rulelens/memoryContext", { workspaceUri = ws, query = query or "" }, function(block)
    local lines = vim.split(block.text or "", "\n", { plain = true })
    if block.text == "" then lines = { "(nothing is injected)", "", block.reason or "" } end
    M.context_buf = scratch("RuleLens first-turn memory context", lines, "markdown")
  end)
end

local function execute(arguments, cb)
  call("workspace/executeCommand", { command = "rulelens.remember", arguments = { arguments } }, cb)
end

--- Preview, scope, confirm, write. `confirm` (tests) replaces the yes/no question.
function M.remember(text, opts)
  opts = opts or {}
  if not text or text == "" then
    vim.ui.input({ prompt = "Remember: " }, function(t)
      if t and t ~= "" then M.remember(t, opts) end
    end)
    return
  end
  local _, ws = client_and_ws()
  if not ws then return end
  vim.ui.select({ "global", "workspace" }, { prompt = "RuleLens: remember into which memory?" },
    function(scope)
      if not scope then return end
      local args = { text = text, scope = scope, workspaceUri = ws, dryRun = true }
      execute(args, function(plan)
        local preview = { "RuleLens: this exact text is written to " .. plan.path, "" }
        vim.list_extend(preview, vim.split(plan.text, "\n", { plain = true }))
        if plan.warning and plan.warning ~= vim.NIL then
          table.insert(preview, "")
          table.insert(preview, "warning: " .. plan.warning)
        end
        M.preview = preview
        local yes = opts.confirm
        if yes == nil then
          yes = vim.fn.confirm(table.concat(preview, "\n") .. "\n\nWrite it?", "&Yes\n&No", 2) == 1
        end
        if not yes then
          vim.notify("RuleLens: nothing written", vim.log.levels.INFO)
          return
        end
        execute({ text = text, scope = scope, workspaceUri = ws,
                  expectedSha256 = plan.sha256 }, function(done)
          M.remembered = done
          vim.notify("RuleLens: saved to " .. done.path, vim.log.levels.INFO)
        end)
      end)
    end)
end

function M.commands()
  vim.api.nvim_create_user_command("RuleLensMemory", function(a) M.search(a.args) end,
    { nargs = "?", desc = "RuleLens: search the agent's memory" })
  vim.api.nvim_create_user_command("RuleLensMemoryExplain",
    function(a) M.search(a.args, { explain = true }) end,
    { nargs = "?", desc = "RuleLens: memory results with why each ranked there" })
  vim.api.nvim_create_user_command("RuleLensMemoryRank", function(a) M.set_rank(a.args) end,
    { nargs = "?", complete = function() return { "agent", "best" } end,
      desc = "RuleLens: memory ranking, the agent's or best (toggles without an argument)" })
  vim.api.nvim_create_user_command("RuleLensRemember", function(a) M.remember(a.args) end,
    { nargs = "?", desc = "RuleLens: remember a note (preview, scope, confirm)" })
  vim.api.nvim_create_user_command("RuleLensMemoryStatus", function() M.status() end,
    { desc = "RuleLens: which memory the agent uses, roots, index" })
  vim.api.nvim_create_user_command("RuleLensMemoryContext", function(a) M.context(a.args) end,
    { nargs = "?", desc = "RuleLens: the first-turn <memory-context> block, read-only" })
end

return M
