-- The :RuleLensChain sidebar: for the buffer you are looking at, every enabled agent's view
-- for the same start directory as the code lens and hover (the workspace folder, or
-- agentCwd), under the same per-agent headline. <CR> opens the file under the cursor; the
-- sidebar follows buffer switches and rulelens/chainChanged. `:RuleLensChain claude` shows
-- one agent's view, `:RuleLensChain all` every agent's, `:RuleLensChain here` Grok's chain
-- for a session started in the file's own folder (load order, skips, tracker split).
-- Long reasons wrap to the window width.
local S = {}

local plugin -- the rulelens module (set by setup)
local state = { buf = nil, source = nil, uri = nil, entries = {}, agent = nil }

--- The server's agents (rulelens/agents: id, short, display, evidence, ...), once asked.
S.known = nil

--- Ask the server which agents it knows (the registry), remember them, then `done(list)`.
function S.fetch_agents(client, bufnr, done)
  if S.known then return done(S.known) end
  plugin.request(client, "rulelens/agents", vim.empty_dict(), function(err, result)
    if not err and type(result) == "table" then S.known = result end
    done(S.known or {})
  end, bufnr)
end

--- Completion for :RuleLensChain: every agent id the server knows, and `all`.
function S.complete()
  local out = {}
  if S.known == nil then
    local client = plugin and plugin.get_clients(vim.api.nvim_get_current_buf())[1]
    if client and client.request_sync then
      local ok, reply = pcall(function()
        if vim.fn.has("nvim-0.11") == 1 then return client:request_sync("rulelens/agents", vim.empty_dict(), 2000) end
        return client.request_sync("rulelens/agents", vim.empty_dict(), 2000)
      end)
      if ok and reply and type(reply.result) == "table" then S.known = reply.result end
    end
  end
  for _, a in ipairs(S.known or {}) do table.insert(out, a.id) end
  table.insert(out, "all")
  table.insert(out, "here")
  return out
end

function S.setup(mod) plugin = mod end

local function visible_win()
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then return nil end
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == state.buf then return win end
  end
  return nil
end

local function ensure_buf()
  if state.buf and vim.api.nvim_buf_is_valid(state.buf) then return state.buf end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "rulelens"
  pcall(vim.api.nvim_buf_set_name, buf, "RuleLens chain")
  vim.keymap.set("n", "<CR>", S.open_entry, { buffer = buf, desc = "RuleLens: open file" })
  vim.keymap.set("n", "q", S.close, { buffer = buf, desc = "RuleLens: close sidebar" })
  state.buf = buf
  return buf
end

local function rel(path, base)
  if base and path == base then return "./" end
  if base and path:sub(1, #base + 1) == base .. "/" then return path:sub(#base + 2) end
  return vim.fn.fnamemodify(path, ":~")
end

local function width()
  local win
  if state.buf then
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(w) == state.buf then win = w end
    end
  end
  return win and vim.api.nvim_win_get_width(win) or (plugin and plugin.config.width or 64)
end

--- `text` wrapped at word boundaries to `cols`, every line after the first indented by `indent`.
function S.wrap(text, cols, indent)
  text = tostring(text)
  local lead = text:match("^%s*")
  local out, line = {}, ""
  for word in text:gmatch("%S+") do
    if line == "" then
      line = (#out == 0 and lead or indent) .. word
    elseif #line + 1 + #word > cols then
      table.insert(out, line)
      line = indent .. word
    else
      line = line .. " " .. word
    end
  end
  if line ~= "" then table.insert(out, line) end
  return out
end

--- The per-agent headline wrapped between agents, never inside one: `Codex 1 · 63 tok`
--- (and a trailing `+3 more`) stay on one line; each line but the last ends with ` ·`.
function S.wrap_headline(text, cols, indent)
  local groups = {}
  for part in (tostring(text) .. " · "):gmatch("(.-) · ") do
    if #groups > 0 and part:match("^[%d+]") then
      groups[#groups] = groups[#groups] .. " · " .. part
    else
      table.insert(groups, part)
    end
  end
  local out, line = {}, ""
  for i, group in ipairs(groups) do
    local piece = group .. (i < #groups and " ·" or "")
    if line == "" then
      line = (#out == 0 and "" or indent) .. piece
    elseif #line + 1 + #piece > cols then
      table.insert(out, line)
      line = indent .. piece
    else
      line = line .. " " .. piece
    end
  end
  if line ~= "" then table.insert(out, line) end
  return out
end

local function set_lines(lines)
  local buf = ensure_buf()
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

--- A fresh `lines`/`entries` pair and its `add(text, path?)`, headed "RuleLens · name".
local function collector(name)
  local lines, entries = {}, {}
  local function add(text, path)
    table.insert(lines, text)
    if path then entries[#lines] = path end
  end
  add("RuleLens · " .. name)
  return lines, entries, add
end

--- Lines for a rulelens/chain payload; entries map 1-based line numbers to file paths.
function S.format(name, chain, cols)
  local lines, entries, add = collector(name)
  if chain == nil or chain == vim.NIL then
    add("")
    add("No chain: not a file in this workspace.")
    return lines, entries
  end
  local base = (chain.git_root ~= vim.NIL and chain.git_root) or chain.cwd
  add("cwd: " .. rel(chain.cwd, base) .. "   root: " .. vim.fn.fnamemodify(base, ":~"))
  if chain.trustNote and chain.trustNote ~= vim.NIL then
    -- Folder trust withholds project files: one line, with the command that changes it.
    for _, l in ipairs(S.wrap("! " .. chain.trustNote, cols or 64, "  ")) do add(l) end
  end
  add("")
  local total = 0
  add(("Loaded (%d), first to last; the last wins:"):format(#chain.files))
  for _, f in ipairs(chain.files) do
    total = total + f.tokens
    local source = (f.source and f.source ~= vim.NIL) and f.source or f.role
    add(("%3d  %-7s %-5s %s  ~%d tok"):format(f.precedence, source, f.kind,
      rel(f.path, base), f.tokens), f.path)
  end
  add(("     total ~%d tokens"):format(total))
  add("")
  add(("Not loaded (%d):"):format(#chain.skipped))
  for _, s in ipairs(chain.skipped) do
    add(("  %s  [%s]"):format(rel(s.path, base), s.reason), s.path)
    for _, l in ipairs(S.wrap("      " .. s.detail, cols or 64, "      ")) do add(l, s.path) end
  end
  local t = chain.tracker
  if t and t ~= vim.NIL then
    add("")
    add("Tracker (agent starts in " .. rel(t.agent_cwd, base) .. "):")
    add(("  at session start: %d files"):format(#t.session_files))
    add(("  only mentioned by path (%d):"):format(#t.mentioned_by_path))
    for _, p in ipairs(t.mentioned_by_path) do add("    " .. rel(p, base), p) end
    add("  " .. t.note)
  end
  return lines, entries
end

local WHEN = { start = "at start", ["on-read"] = "on read", may = "may pull in" }

--- Lines for one agent's view (rulelens/chain with `agent`, or one entry of agentsForFile).
--- How sure a line is, compactly (as the CLI table and the hover mark their columns).
S.MARKS = { code = "ᶜ", docs = "ᵈ", observed = "ᵒ" }
local function mark(line)
  local m = (line.evidence and line.evidence ~= vim.NIL) and (S.MARKS[line.evidence] or "") or ""
  return m ~= "" and (" " .. m) or ""
end

--- Known-bug notes of one line (`† …`), wrapped under it.
local function add_notes(add, line, cols)
  for _, note in ipairs((line.notes ~= nil and line.notes ~= vim.NIL) and line.notes or {}) do
    for _, l in ipairs(S.wrap("              † " .. note, cols, "                ")) do add(l, line.path) end
  end
end

local function format_agent(add, view, cols)
  local base = (view.git_root ~= vim.NIL and view.git_root) or view.cwd
  add(("%s — start directory: %s"):format(view.display or view.agent, vim.fn.fnamemodify(view.cwd, ":~")))
  if view.last_session and view.last_session ~= vim.NIL then
    -- The verdict of the agent's last recorded session here (`rulelens verify`).
    for _, l in ipairs(S.wrap("  last session: " .. view.last_session, cols, "                ")) do add(l) end
  end
  local withheld = 0
  for _, s in ipairs(view.skipped) do
    if s.reason == "untrusted-folder" then withheld = withheld + 1 end
  end
  if withheld > 0 then
    -- Folder trust withholds project files: one line first, with the command that changes it.
    local cmd = (view.trust_command and view.trust_command ~= vim.NIL)
      and ("; run `" .. view.trust_command .. "` here") or ""
    for _, l in ipairs(S.wrap(("  ! Folder not trusted yet: %d project file%s withheld%s")
      :format(withheld, withheld == 1 and "" or "s", cmd), cols, "    ")) do add(l) end
  end
  if view.basis_label and view.basis_label ~= "" then add("  (" .. view.basis_label .. ")") end
  if view.evidence_source and view.evidence_source ~= vim.NIL and view.evidence_source ~= "" then
    -- Where the facts come from; each line below carries its mark (ᶜ code, ᵈ docs).
    for _, l in ipairs(S.wrap("  source" .. mark({ evidence = view.basis }) .. ": " .. view.evidence_source,
      cols, "          ")) do add(l) end
  end
  for _, note in ipairs(view.notes or {}) do
    for _, l in ipairs(S.wrap("  note: " .. note, cols, "        ")) do add(l) end
  end
  for _, f in ipairs(view.files) do
    local cut = (f.truncated_at ~= nil and f.truncated_at ~= vim.NIL) and (" · cut at byte " .. f.truncated_at) or ""
    add(("  %-11s %s%s%s"):format(WHEN[f.when] or f.when, rel(f.path, base), cut, mark(f)), f.path)
    for _, l in ipairs(S.wrap("              " .. f.why, cols, "              ")) do add(l, f.path) end
    add_notes(add, f, cols)
  end
  local foreign = {}
  for _, p in ipairs((view.foreign ~= vim.NIL and view.foreign) or {}) do foreign[p] = true end
  local others = {}
  for _, s in ipairs(view.skipped) do
    if foreign[s.path] then
      table.insert(others, rel(s.path, base))
    else
      add(("  %-11s %s  [%s]%s"):format("not loaded", rel(s.path, base), s.reason, mark(s)), s.path)
      for _, l in ipairs(S.wrap("              " .. s.detail, cols, "              ")) do add(l, s.path) end
      add_notes(add, s, cols)
    end
  end
  if #others > 0 then
    -- Other agents' files this one merely does not read: one folded line.
    for _, l in ipairs(S.wrap(("  other agents' files (%d): %s"):format(#others, table.concat(others, ", ")),
      cols, "              ")) do add(l) end
  end
end

--- Lines for `:RuleLensChain`, `:RuleLensChain AGENT` and `:RuleLensChain all`: the
--- headline (the code lens's words) first, then each agent's view.
function S.format_agents(name, views, cols, headline)
  local lines, entries, add = collector(name)
  if views == nil or views == vim.NIL or #views == 0 then
    add("")
    add("No chain: RuleLens answers for files inside the workspace folders.")
    return lines, entries
  end
  if headline and headline ~= vim.NIL then
    -- The whole headline, wrapped between agents to the window: never cut off.
    for _, l in ipairs(S.wrap_headline(headline, cols or 64, "  ")) do add(l) end
    local any = false
    for _, view in ipairs(views) do
      if #view.files > 0 then any = true end
    end
    if not any then
      for _, l in ipairs(S.wrap("No enabled agent loads an instruction file for this file;"
        .. " each view below says what it looked for and why nothing loads.", cols, "")) do add(l) end
    end
  end
  for _, view in ipairs(views) do
    add("")
    format_agent(add, view, cols)
  end
  return lines, entries
end

local function draw(source, payload)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(source), ":~:.")
  local lines, entries
  if state.agent == "here" then
    lines, entries = S.format(name, payload, width() - 1)
  elseif state.agent == nil or state.agent == "all" then
    local ok = payload ~= nil and payload ~= vim.NIL
    local views = ok and payload.agents or nil
    local head = ok and (payload.headline or payload.lens) or nil
    if head and head ~= vim.NIL and payload.cwd then
      head = head .. " · sessions start in " .. vim.fn.fnamemodify(payload.cwd, ":~")
    end
    lines, entries = S.format_agents(name, views, width() - 1, head)
  else
    local views = (payload ~= nil and payload ~= vim.NIL) and { payload } or nil
    lines, entries = S.format_agents(name, views, width() - 1)
  end
  state.entries = entries
  set_lines(lines)
end

--- Ask the server for the chain of buffer `source` and redraw.
function S.update(source)
  if not (source and vim.api.nvim_buf_is_valid(source)) then return end
  state.source = source
  state.uri = vim.uri_from_bufnr(source)
  local client = plugin.get_clients(source)[1]
  if client == nil then
    draw(source, nil)
    return
  end
  local method, params = "rulelens/chain", { uri = state.uri }
  if state.agent == nil then
    -- The enabled agents (the server's default) for the headline views' start directory.
    return S.request_view(client, source, "rulelens/agentsForFile", { uri = state.uri })
  elseif state.agent == "here" then
    return S.request_view(client, source, method, params)
  elseif state.agent == "all" then
    -- Every agent the server knows: the list comes from its registry, not from here.
    return S.fetch_agents(client, source, function(known)
      local ids = {}
      for _, a in ipairs(known) do table.insert(ids, a.id) end
      S.request_view(client, source, "rulelens/agentsForFile", { uri = state.uri, agents = ids })
    end)
  elseif state.agent ~= nil then
    params.agent = state.agent
  end
  S.request_view(client, source, method, params)
end

--- Send `method` for buffer `source` and draw its answer (if the buffer is still shown).
function S.request_view(client, source, method, params)
  plugin.request(client, method, params, function(err, result)
    if state.source ~= source then return end
    if err then
      set_lines({ "RuleLens: " .. (err.message or tostring(err)) })
      return
    end
    draw(source, result)
  end, source)
end

function S.open(source)
  source = source or vim.api.nvim_get_current_buf()
  if source == state.buf then source = state.source end
  ensure_buf()
  if not visible_win() then
    local prev = vim.api.nvim_get_current_win()
    vim.cmd("topleft vsplit")
    local win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, state.buf)
    vim.api.nvim_win_set_width(win, plugin.config.width)
    vim.wo[win].winfixwidth = true
    vim.wo[win].number = false
    vim.wo[win].wrap = false -- long reasons are wrapped by S.wrap, at word boundaries
    vim.api.nvim_set_current_win(prev)
  end
  S.update(source)
end

function S.close()
  local win = visible_win()
  if win and #vim.api.nvim_list_wins() > 1 then vim.api.nvim_win_close(win, true) end
end

--- `:RuleLensChain [agent]`: no argument toggles the enabled agents' views (the headline
--- views' start directory); an agent, `all` or `here` (Grok from the file's own folder)
--- opens that view, or switches the open sidebar to it.
function S.toggle(agent)
  if agent == "" then agent = nil end
  if agent ~= nil and agent ~= "here" and agent ~= "all" and S.known ~= nil then
    local ids = {}
    for _, a in ipairs(S.known) do table.insert(ids, a.id) end
    if not vim.tbl_contains(ids, (agent:gsub("@.*$", ""))) then
      vim.notify("RuleLens: unknown agent " .. agent .. " (" .. table.concat(ids, ", ")
        .. ", all, here)", vim.log.levels.ERROR)
      return
    end
  end
  local same = agent == state.agent
  state.agent = agent
  if same and visible_win() and vim.api.nvim_get_current_buf() == state.buf then
    S.close()
  else
    S.open(vim.api.nvim_get_current_buf())
  end
end

--- <CR>: open the file of the entry under the cursor in the window the user came from.
function S.open_entry()
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local path = state.entries[line]
  if not path then return end
  local side = vim.api.nvim_get_current_win()
  local target
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if win ~= side and vim.api.nvim_win_get_buf(win) == state.source then target = win end
  end
  if target == nil then
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if win ~= side then target = win break end
    end
  end
  if target == nil then
    vim.cmd("rightbelow vsplit")
    target = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_set_current_win(target)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
end

--- BufEnter anywhere: show the chain of the new buffer when the sidebar is open.
function S.follow(buf)
  if buf == state.buf or not visible_win() then return end
  if vim.bo[buf].buftype ~= "" or vim.api.nvim_buf_get_name(buf) == "" then return end
  -- the server may still be attaching: retry briefly
  local tries = 0
  local function go()
    tries = tries + 1
    if #plugin.get_clients(buf) > 0 or tries > 20 then
      S.update(buf)
    else
      vim.defer_fn(go, 100)
    end
  end
  go()
end

function S.on_chain_changed(uris)
  if not (state.source and visible_win()) then return end
  for _, uri in ipairs(uris) do
    if uri == state.uri then
      S.update(state.source)
      return
    end
  end
end

--- :RuleLensRender — the exact injected text in a scratch split.
function S.render_text()
  local source = vim.api.nvim_get_current_buf()
  local client = plugin.get_clients(source)[1]
  if not client then
    vim.notify("RuleLens: this buffer is not attached", vim.log.levels.WARN)
    return
  end
  plugin.request(client, "rulelens/render", { uri = vim.uri_from_bufnr(source) },
    function(err, result)
      if err or result == nil or result == vim.NIL then
        vim.notify("RuleLens: nothing to render: this buffer is not a file inside the workspace"
          .. " folders", vim.log.levels.INFO)
        return
      end
      if result.text == "" then
        -- An empty prompt says why (untrusted folder, nothing found) instead of a blank buffer.
        local why = (result.empty and result.empty ~= vim.NIL) and result.empty
          or "no instruction file loads for this buffer"
        vim.notify("RuleLens: nothing to render: " .. why, vim.log.levels.INFO)
        S.last_render_message = why
        return
      end
      vim.cmd("botright new")
      local buf = vim.api.nvim_get_current_buf()
      vim.bo[buf].buftype = "nofile"
      vim.bo[buf].bufhidden = "wipe"
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.text, "\n", { plain = true }))
      vim.bo[buf].modifiable = false
    end, source)
end

S._state = state
return S
