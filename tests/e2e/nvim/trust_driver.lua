-- Headless driver: :RuleLensChain in a folder Grok does not trust yet (issue 12).
-- Env: RULELENS_PLUGIN, RULELENS_CMD (JSON list), WS (repo), OUT (json)
local out_path = assert(os.getenv("OUT"))
local ws = assert(os.getenv("WS"))
local results = {}

local function sidebar_lines()
  local s = require("rulelens.sidebar")._state
  if not (s.buf and vim.api.nvim_buf_is_valid(s.buf)) then return {} end
  return vim.api.nvim_buf_get_lines(s.buf, 0, -1, false)
end
local function sidebar_has(text)
  for _, l in ipairs(sidebar_lines()) do
    if l:find(text, 1, true) then return true end
  end
  return false
end

local ok, err = pcall(function()
  vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
  local rulelens = require("rulelens")
  rulelens.setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")) })
  vim.cmd("edit " .. ws .. "/src/app/handlers/orders.py")
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.wait(20000, function()
    local c = rulelens.get_clients(bufnr)[1]
    return c ~= nil and c.initialized
  end, 50), "server did not attach")
  vim.cmd("RuleLensChain")
  assert(vim.wait(10000, function() return sidebar_has("Loaded (") end, 50), "sidebar empty")
  results.sidebar = sidebar_lines()
end)
if not ok then results.error = tostring(err) end
local f = io.open(out_path, "w")
f:write(vim.fn.json_encode(results))
f:close()
local rl = package.loaded["rulelens"]
if rl then
  for _, c in ipairs(rl.get_clients()) do
    if vim.fn.has("nvim-0.11") == 1 then c:stop() else c.stop() end
  end
  vim.wait(3000, function() return #rl.get_clients() == 0 end, 50)
end
vim.cmd(ok and "qall!" or "cquit! 1")
