-- Headless driver: the Neovim plugin's empty states say why and what next (issue 20).
-- An untrusted repository with only AGENTS.md, a home without any agent files.
-- Env: RULELENS_PLUGIN, RULELENS_CMD (JSON list), WS (repo), OUT (json)
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local ws, results, step = H.ws, H.results, H.step

local notes = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(notes, msg)
  return notify(msg, level, opts)
end

local ok, err = pcall(function()
  vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
  local rulelens = require("rulelens")
  rulelens.setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")) })
  vim.cmd("edit " .. ws .. "/src/app.py")
  local bufnr = vim.api.nvim_get_current_buf()
  H.attached(rulelens, bufnr)
  step("attached")

  -- :RuleLensRender with nothing injected: a message saying why, not an empty buffer.
  local buffers = #vim.api.nvim_list_bufs()
  vim.cmd("RuleLensRender")
  assert(vim.wait(15000, function()
    for _, n in ipairs(notes) do
      if n:find("nothing to render", 1, true) then return true end
    end
    return false
  end, 50), "no empty-render message")
  results.render_notes = notes
  results.render_new_buffers = #vim.api.nvim_list_bufs() - buffers
  step("render")

  -- :RuleLensChain: the sidebar for a file no enabled agent loads anything for.
  vim.cmd("RuleLensChain")
  assert(vim.wait(15000, function() return H.sidebar_has("sessions start in") end, 50),
    "the sidebar showed no headline")
  results.sidebar = H.sidebar_lines()
  step("sidebar")
end)
H.report(ok, err)
