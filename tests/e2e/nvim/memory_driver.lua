-- Headless end-to-end driver for the RuleLens memory commands (0.7.2 and 0.11).
-- Env: RULELENS_PLUGIN (the nvim/ dir), RULELENS_CMD (JSON list), WS (repo), OUT (json)
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local ws, results, step = H.ws, H.results, H.step

-- vim.ui.select is the picker's API (no Telescope/fzf-lua here): record what it is shown
-- and choose the first item, as a user pressing <CR> would.
local picked = nil
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, it in ipairs(items) do labels[i] = opts.format_item and opts.format_item(it) or it end
  picked = { prompt = opts.prompt, labels = labels }
  on_choice(items[1], 1)
end

local function buf_lines(buf) return vim.api.nvim_buf_get_lines(buf, 0, -1, false) end

local ok, err = pcall(function()
  vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
  local rulelens = require("rulelens")
  rulelens.setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")) })
  local memory = require("rulelens.memory")
  results.version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)
  vim.cmd("edit " .. ws .. "/AGENTS.md")
  local bufnr = vim.api.nvim_get_current_buf()
  H.attached(rulelens, bufnr)
  step("attached")

  vim.cmd("RuleLensMemory stripe webhook retries")
  assert(vim.wait(30000, function() return picked ~= nil end, 50), "no picker")
  results.agent_picker = picked
  assert(vim.wait(5000, function()
    return vim.api.nvim_buf_get_name(0):find("MEMORY.md", 1, true) ~= nil
  end, 50), "<CR> did not open the memory file")
  results.opened = vim.api.nvim_buf_get_name(0)
  results.cursor = vim.api.nvim_win_get_cursor(0)[1]
  results.opened_line = vim.api.nvim_buf_get_lines(0, results.cursor - 1, results.cursor, false)[1]
  step("picker")

  picked = nil
  vim.cmd("RuleLensMemoryRank best")
  vim.cmd("RuleLensMemory stripe webhook retries")
  assert(vim.wait(30000, function() return picked ~= nil end, 50), "no best picker")
  results.best_picker = picked
  step("best")

  vim.cmd("RuleLensMemoryExplain stripe webhook retries")
  assert(vim.wait(30000, function()
    return vim.api.nvim_buf_get_name(0):find("explain", 1, true) ~= nil
  end, 50), "no explain buffer")
  results.explain = buf_lines(0)
  step("explain")

  vim.cmd("RuleLensMemoryStatus")
  assert(vim.wait(20000, function() return memory.status_buf ~= nil end, 50), "no status")
  results.status = buf_lines(memory.status_buf)
  step("status")

  vim.cmd("RuleLensMemoryContext hi")
  assert(vim.wait(20000, function() return memory.context_buf ~= nil end, 50), "no context")
  results.context = buf_lines(memory.context_buf)
  results.context_modifiable = vim.bo[memory.context_buf].modifiable
  step("context")

  picked = nil
  memory.remember("Refunds go through the ledger\nnever edit journal rows", { confirm = true })
  assert(vim.wait(20000, function() return memory.remembered ~= nil end, 50), "not remembered")
  results.remember_prompt = picked
  results.preview = memory.preview
  results.remembered = memory.remembered
  step("remember")
end)
H.report(ok, err)
