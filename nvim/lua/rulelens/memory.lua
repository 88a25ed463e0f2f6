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
--   :RuleLensMemoryAgent [grok|all|claude|codex|gemini|qwen]  whose memory :RuleLensMemory
--                                  searches (toggles grok/all without an argument); other
--                                  agents' hits are grouped by agent and marked "injected at
--                                  start" or "on demand"
--   :RuleLensMemoryLive [query]    a prompt buffer that re-searches as you type (every
--                                  agent's memory with `all`); <C-n>/<C-p> move, <CR> opens
local M = {}

local plugin -- the rulelens module (set by setup)
M.rank = "agent"
M.sources = { "memory" }
M.agent = "grok"
--- Live search: wait this long after the last keystroke before asking the server.
M.debounce_ms = 200

function M.setup(mod)
  plugin = mod
  local cfg = mod.config.memory or {}
  M.rank = cfg.rank or "agent"
  M.sources = cfg.sources or { "memory" }
  M.agent = cfg.agent or "grok"
end

local MARKS = { start = "injected at start", ["on-demand"] = "on demand", no = "not read by the agent" }

--- How an agent's hit reaches its model, in words (the server's `injected` label).
function M.injected_mark(injected) return MARKS[injected] or MARKS.no end

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

--- `~/.grok/memory/ws/MEMORY.md` -> `MEMORY.md`, `~/.grok/memory/ws/`: the name comes first.
local function name_and_folder(path, root)
  local shown = rel(path, root)
  local folder, name = shown:match("^(.*/)([^/]+)$")
  return name or shown, folder
end

--- One picker row: score first, the file name:lines then its folder, flags, the matched
--- sentence. Another agent's hit leads with the agent's name and its mark (the picker
--- groups by agent).
function M.format_item(item, keywords, root, names)
  if item.injected ~= nil then
    return string.format("%s · %s  %.2f  %s:%d-%d  %s", (names or {})[item.agent] or item.agent,
      M.injected_mark(item.injected), item.score or 0, rel(item.path, root), item.start_line,
      item.end_line, M.matched_line(item.snippet or "", keywords))
  end
  local flags = {}
  if item.source == "transcript" then
    table.insert(flags, "transcript · not searched by the agent")
  else
    table.insert(flags, item.source)
    table.insert(flags, item.agent_returns and "agent" or "editor only")
  end
  if item.superseded_by and item.superseded_by ~= vim.NIL then table.insert(flags, "superseded") end
  if item.injected_first_turn then table.insert(flags, "first turn") end
  local name, folder = name_and_folder(item.path, root)
  return string.format("%.2f  %s:%d-%d  %s[%s]  %s", item.score or 0,
    name, item.start_line, item.end_line, folder and (folder .. "  ") or "",
    table.concat(flags, ", "), M.matched_line(item.snippet or "", keywords))
end

--- Group another agent's hits by agent, each group where its best hit ranks, the server's
--- order kept inside a group: { {agent=, label=, items={...}}, ... }.
function M.groups(result)
  local order, by = {}, {}
  for _, r in ipairs(result.results or {}) do
    local a = r.agent or "grok"
    if not by[a] then
      by[a] = {}
      table.insert(order, a)
    end
    table.insert(by[a], r)
  end
  local out = {}
  for _, a in ipairs(order) do
    local name = (result.names or {})[a] or a
    table.insert(out, { agent = a, label = string.format("%s (%d)", name, #by[a]), items = by[a] })
  end
  return out
end

--- Flatten a search answer to picker items (memory results, then transcript turns; other
--- agents' hits grouped by agent).
function M.items(result)
  local out = {}
  if result.agents then
    for _, g in ipairs(M.groups(result)) do vim.list_extend(out, g.items) end
    return out
  end
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

local function pick(items, keywords, root, title, names)
  local labels = {}
  for i, it in ipairs(items) do labels[i] = M.format_item(it, keywords, root, names) end
  local ok_t, pickers = pcall(require, "telescope.pickers")
  if ok_t and M.use_telescope ~= false then
    local finders = require("telescope.finders")
    local conf = require("telescope.config").values
    local actions = require("telescope.actions")
    local state = require("telescope.actions.state")
    pickers.new({}, {
      prompt_title = title,
      finder = finders.new_table({ results = items, entry_maker = function(it)
        local label = M.format_item(it, keywords, root, names)
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
    return M.format_item(it, keywords, root, names)
  end }, function(choice) M.open_item(choice) end)
end

--- The rulelens/memorySearch params for the current rank, sources and agent.
function M.search_params(query, ws)
  local params = { query = query, workspaceUri = ws, all = true }
  if M.agent ~= "grok" then
    params.agent = M.agent
    return params
  end
  if M.rank ~= "agent" then params.rank = M.rank end
  if #M.sources ~= 1 or M.sources[1] ~= "memory" then params.sources = M.sources end
  return params
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
  local params = M.search_params(query, ws)
  if opts.explain then params.explain = true end
  call("rulelens/memorySearch", params, function(result)
    M.last = result
    if opts.explain then return M.show_explain(result, root) end
    local items = M.items(result)
    if #items == 0 then
      vim.notify("RuleLens: no memory results for " .. query, vim.log.levels.INFO)
      return
    end
    local title = result.agents and ("RuleLens memory (" .. M.agent .. ", grouped by agent)")
      or ("RuleLens memory (" .. M.rank .. ")")
    pick(items, result.keywords, root, title, result.names)
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

function M.set_agent(agent)
  if agent == nil or agent == "" then agent = (M.agent == "grok") and "all" or "grok" end
  M.agent = agent
  vim.notify("RuleLens memory: " .. (agent == "all" and "every agent's memory" or agent .. "'s memory"),
    vim.log.levels.INFO)
end

--- The live search window: results on top, a one-line prompt buffer below; every change
--- to the prompt re-searches after `M.debounce_ms` (a newer query's answer wins).
function M.live(initial)
  local _, ws, root = client_and_ws()
  if not ws then return end
  local prompt = "memory> "
  local results = vim.api.nvim_create_buf(false, true)
  vim.bo[results].bufhidden = "wipe"
  pcall(vim.api.nvim_buf_set_name, results, "RuleLens memory live")
  local input = vim.api.nvim_create_buf(false, true)
  vim.bo[input].buftype = "prompt"
  vim.bo[input].bufhidden = "wipe"
  vim.fn.prompt_setprompt(input, prompt)
  vim.cmd("botright split")
  local results_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(results_win, results)
  vim.cmd("botright split")
  local input_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(input_win, input)
  vim.api.nvim_win_set_height(input_win, 1)
  local state = { seq = 0, items = {}, rows = {}, selected = 1, results = results, input = input }
  M.live_state = state
  local ns = vim.api.nvim_create_namespace("rulelens_memory_live")

  local function render(lines)
    vim.bo[results].modifiable = true
    vim.api.nvim_buf_set_lines(results, 0, -1, false, lines)
    vim.bo[results].modifiable = false
    vim.api.nvim_buf_clear_namespace(results, ns, 0, -1)
    local row = state.rows[state.selected]
    if row then vim.api.nvim_buf_add_highlight(results, ns, "Visual", row - 1, 0, -1) end
  end
  local function show(result, query)
    local lines, items, rows = {}, {}, {}
    if result.agents then
      for _, g in ipairs(M.groups(result)) do
        table.insert(lines, "── " .. g.label .. " ──")
        for _, it in ipairs(g.items) do
          table.insert(items, it)
          table.insert(lines, "  " .. M.format_item(it, result.keywords, root, result.names))
          rows[#items] = #lines
        end
      end
    else
      for _, it in ipairs(M.items(result)) do
        table.insert(items, it)
        table.insert(lines, M.format_item(it, result.keywords, root))
        rows[#items] = #lines
      end
    end
    if #items == 0 then
      -- Say what was searched and what to do next, not just "nothing".
      lines = { "No memory matches \"" .. query .. "\" in this workspace's memory or the global one",
        ":RuleLensMemoryStatus lists the files searched; try other words" }
    end
    for _, n in ipairs(result.notes or {}) do table.insert(lines, "note: " .. n) end
    state.items, state.rows, state.selected, state.query = items, rows, 1, query
    render(lines)
    state.shown = lines
  end
  local function run(query)
    state.seq = state.seq + 1
    local seq = state.seq
    if vim.trim(query) == "" then
      state.items, state.rows = {}, {}
      render({ "Type to search " .. (M.agent == "all" and "every agent's memory" or "memory") })
      return
    end
    call("rulelens/memorySearch", M.search_params(query, ws), function(result)
      if seq == state.seq and vim.api.nvim_buf_is_valid(results) then show(result, query) end
    end)
  end
  local function text()
    local line = vim.api.nvim_buf_get_lines(input, -2, -1, false)[1] or ""
    return line:sub(#prompt + 1)
  end
  local timer = vim.loop.new_timer()
  local function close()
    timer:stop()
    timer:close()
    for _, w in ipairs({ input_win, results_win }) do
      if vim.api.nvim_win_is_valid(w) then vim.api.nvim_win_close(w, true) end
    end
    M.live_state = nil
  end
  state.close = close
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, { buffer = input, callback = function()
    timer:stop()
    timer:start(M.debounce_ms, 0, vim.schedule_wrap(function()
      if vim.api.nvim_buf_is_valid(input) then run(text()) end
    end))
  end })
  vim.fn.prompt_setcallback(input, function()
    local item = state.items[state.selected]
    close()
    vim.cmd("stopinsert")
    M.open_item(item)
  end)
  local function move(d)
    return function()
      if #state.items == 0 then return end
      state.selected = (state.selected - 1 + d) % #state.items + 1
      render(state.shown or {})
    end
  end
  for _, mode in ipairs({ "i", "n" }) do
    vim.keymap.set(mode, "<C-n>", move(1), { buffer = input })
    vim.keymap.set(mode, "<C-p>", move(-1), { buffer = input })
    vim.keymap.set(mode, "<Esc>", function() close(); vim.cmd("stopinsert") end, { buffer = input })
  end
  render({ "Type to search " .. (M.agent == "all" and "every agent's memory" or "memory") })
  vim.cmd("startinsert")
  if initial and initial ~= "" then vim.api.nvim_feedkeys(initial, "n", false) end
  return state
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

--- The memory agents, present ones first: calls `cb(agents, status)` (Grok alone when the
--- server does not answer with `agent: "all"`).
local function memory_agents(ws, cb)
  call("rulelens/memoryStatus", { workspaceUri = ws, agent = "all" }, function(st)
    if type(st) ~= "table" or type(st.agents) ~= "table" then return cb({ "grok" }, nil) end
    M.known_agents = {}
    for _, v in ipairs(st.agents) do table.insert(M.known_agents, v.agent) end
    local present, first, rest = {}, {}, {}
    for _, a in ipairs(st.present or {}) do present[a] = true end
    for _, v in ipairs(st.agents) do
      table.insert(present[v.agent] and first or rest, v.agent)
    end
    cb(vim.list_extend(first, rest), st)
  end)
end

--- Remember into another agent's memory: its scope (asked when it has two), the exact
--- bytes from the server's dry run, confirm, write with `agent`.
local function remember_agent(text, agent, st, ws, opts)
  local scopes = (st.remember_scopes or {})[agent] or {}
  local function go(scope)
    local args = { text = text, scope = scope or "workspace", workspaceUri = ws, agent = agent,
                   dryRun = true }
    execute(args, function(plan)
      local name = (st.names or {})[agent] or agent
      local preview = { "RuleLens: " .. name .. " (" .. plan.format .. "): these exact bytes are"
        .. " appended to " .. plan.path, "" }
      vim.list_extend(preview, vim.split(plan.text, "\n", { plain = true }))
      M.preview = preview
      local yes = opts.confirm
      if yes == nil then
        yes = vim.fn.confirm(table.concat(preview, "\n") .. "\nWrite it?", "&Yes\n&No", 2) == 1
      end
      if not yes then
        vim.notify("RuleLens: nothing written", vim.log.levels.INFO)
        return
      end
      args.dryRun = nil
      execute(args, function(done)
        M.remembered = done
        vim.notify("RuleLens: saved to " .. done.path, vim.log.levels.INFO)
      end)
    end)
  end
  if #scopes > 1 then
    vim.ui.select(scopes, { prompt = "RuleLens: " .. ((st.names or {})[agent] or agent)
      .. " memory: which scope?" }, function(scope) if scope then go(scope) end end)
  else
    go(scopes[1])
  end
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
  if not opts.agent_chosen then
    return memory_agents(ws, function(agents, st)
      if not st then return M.remember(text, vim.tbl_extend("force", opts, { agent_chosen = true })) end
      local present = {}
      for _, a in ipairs(st.present or {}) do present[a] = true end
      vim.ui.select(agents, { prompt = "RuleLens: remember into which agent's memory?",
        format_item = function(a)
          local scopes = (st.remember_scopes or {})[a] or {}
          return ((st.names or {})[a] or a) .. (present[a] and "  (present)" or "")
            .. (#scopes == 0 and "  (writes its own memory)" or "")
        end }, function(agent)
          if not agent then return end
          if agent == "grok" then
            return M.remember(text, vim.tbl_extend("force", opts, { agent_chosen = true }))
          end
          remember_agent(text, agent, st, ws, opts)
        end)
    end)
  end
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
  vim.api.nvim_create_user_command("RuleLensMemoryAgent", function(a) M.set_agent(a.args) end,
    { nargs = "?", complete = function() return vim.list_extend({ "all" }, M.known_agents or { "grok" }) end,
      desc = "RuleLens: whose memory to search (grok, all, or one agent)" })
  vim.api.nvim_create_user_command("RuleLensMemoryLive", function(a) M.live(a.args) end,
    { nargs = "?", desc = "RuleLens: memory search that re-searches as you type" })
  vim.api.nvim_create_user_command("RuleLensRemember", function(a) M.remember(a.args) end,
    { nargs = "?", desc = "RuleLens: remember a note (preview, scope, confirm)" })
  vim.api.nvim_create_user_command("RuleLensMemoryStatus", function() M.status() end,
    { desc = "RuleLens: which memory the agent uses, roots, index" })
  vim.api.nvim_create_user_command("RuleLensMemoryContext", function(a) M.context(a.args) end,
    { nargs = "?", desc = "RuleLens: the first-turn <memory-context> block, read-only" })
end

return M
