-- RuleLens for Neovim (0.7.2 .. 0.11): starts `rulelens serve` for every file buffer,
-- shows the server's code lenses, and offers :RuleLensChain, a sidebar listing the chain
-- of instruction files that govern the current buffer.
--
--   require("rulelens").setup({})
--
-- Options (all optional):
--   cmd          command that starts the server        (default { "rulelens", "serve" })
--   cmd_env      extra environment for the server      (default nil)
--   settings     the `rulelens` settings section, e.g. { agentCwd = "src" };
--                { agent = "grok@1.0.6" } picks the Grok profile (default "grok": the newest)
--   root_markers directories/files that mark a workspace root (default { ".git" })
--   codelens     show code lenses                      (default true)
--   width        sidebar width                         (default 64)
--   memory       { rank = "agent"|"best", sources = { "memory", "transcript" } }
--                :RuleLensMemory, :RuleLensRemember, :RuleLensMemoryStatus, … (memory.lua)
local M = {}

local sidebar = require("rulelens.sidebar")
local memory = require("rulelens.memory")

local defaults = {
  cmd = { "rulelens", "serve" },
  cmd_env = nil,
  settings = {},
  root_markers = { ".git" },
  codelens = true,
  width = 64,
}

M.config = vim.deepcopy(defaults)
M.name = "rulelens"

local has = function(feature) return vim.fn.has(feature) == 1 end

-- ------------------------------------------------------------ version shims
function M.get_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })
  end
  local out = {}
  local all = bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()
  for _, c in pairs(all) do
    if c.name == M.name then table.insert(out, c) end
  end
  return out
end

function M.request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.refresh_lenses(bufnr)
  if not M.config.codelens then return end
  if bufnr ~= vim.api.nvim_get_current_buf() and not has("nvim-0.10") then return end
  if #M.get_clients(bufnr) == 0 then return end
  if has("nvim-0.10") then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  else
    vim.lsp.codelens.refresh()
  end
end

-- ------------------------------------------------------------------- roots
local function find_root(fname)
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ";")
    if found ~= "" then
      return vim.fn.fnamemodify(vim.fn.fnamemodify(found, ":p"):gsub("/$", ""), ":h")
    end
    found = vim.fn.findfile(marker, dir .. ";")
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h")
    end
  end
  return vim.fn.getcwd()
end

local function is_file_buffer(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  return name ~= "" and not name:match("^%a[%w+.-]*://")
end

-- --------------------------------------------------------------- handlers
local function on_chain_changed(_, result, _ctx, _config)
  local uris = (result and result.uris) or {}
  vim.schedule(function()
    M.refresh_lenses(vim.api.nvim_get_current_buf())
    sidebar.on_chain_changed(uris)
  end)
end

local function on_attach(_client, bufnr)
  local group = vim.api.nvim_create_augroup("rulelens_buf_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ "BufEnter", "BufWritePost", "InsertLeave" }, {
    group = group,
    buffer = bufnr,
    callback = function() M.refresh_lenses(bufnr) end,
  })
  M.refresh_lenses(bufnr)
end

local function client_config(root)
  return {
    name = M.name,
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    -- hoverFormat "list": Neovim's hover window shows Markdown tables as raw pipes.
    init_options = { rulelens = vim.tbl_extend("keep", M.config.settings, { hoverFormat = "list" }) },
    settings = { rulelens = vim.tbl_extend("keep", M.config.settings, { hoverFormat = "list" }) },
    handlers = { ["rulelens/chainChanged"] = on_chain_changed },
    on_attach = on_attach,
  }
end

local started = {} -- root -> client id (Neovim 0.7, which has no vim.lsp.start)

--- Start (or reuse) the server for the buffer's workspace root and attach the buffer.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not is_file_buffer(bufnr) or #M.get_clients(bufnr) > 0 then return end
  local root = find_root(vim.api.nvim_buf_get_name(bufnr))
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), {
      bufnr = bufnr,
      reuse_client = function(client, conf)
        return client.name == conf.name and client.config.root_dir == conf.root_dir
      end,
    })
  end
  local id = started[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(client_config(root))
    started[root] = id
  end
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  sidebar.setup(M)
  memory.setup(M)
  memory.commands()
  vim.lsp.commands["rulelens.showChain"] = function(_command, ctx)
    sidebar.open(ctx and ctx.bufnr or vim.api.nvim_get_current_buf())
  end
  local group = vim.api.nvim_create_augroup("rulelens", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "BufEnter" }, {
    group = group,
    callback = function(args) M.attach(args.buf) end,
  })
  vim.api.nvim_create_autocmd("BufEnter", {
    group = group,
    callback = function(args) sidebar.follow(args.buf) end,
  })
  vim.api.nvim_create_user_command("RuleLensChain", function(args) sidebar.toggle(args.args) end,
    { nargs = "?", complete = function() return sidebar.complete() end,
      desc = "RuleLens: the instruction files of the current buffer (:RuleLensChain claude|all)" })
  vim.api.nvim_create_user_command("RuleLensRender", function() sidebar.render_text() end,
    { desc = "RuleLens: show exactly what the agent injects for the current buffer" })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then M.attach(buf) end
  end
end

return M
