-- Headless driver: :RuleLensChain in a folder Grok does not trust yet (issue 12).
-- Env: RULELENS_PLUGIN, RULELENS_CMD (JSON list), WS (repo), OUT (json)
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local ws, results = H.ws, H.results
local sidebar_lines, sidebar_has = H.sidebar_lines, H.sidebar_has

local ok, err = pcall(function()
  vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
  local rulelens = require("rulelens")
  rulelens.setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")) })
  vim.cmd("edit " .. ws .. "/src/app/handlers/orders.py")
  local bufnr = vim.api.nvim_get_current_buf()
  H.attached(rulelens, bufnr)
  -- Grok's chain for a session started in the file's own folder (the explicit view).
  vim.cmd("RuleLensChain here")
  assert(vim.wait(10000, function() return sidebar_has("Loaded (") end, 50), "sidebar empty")
  results.sidebar = sidebar_lines()
end)
H.report(ok, err)
