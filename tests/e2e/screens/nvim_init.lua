-- A person's Neovim with the RuleLens plugin (for the terminal screenshots): the plugin from
-- RULELENS_PLUGIN, the server from RULELENS_CMD, nothing else.
vim.opt.runtimepath:append(os.getenv("RULELENS_PLUGIN"))
vim.o.termguicolors = true
vim.o.laststatus = 2
require("rulelens").setup({ cmd = vim.fn.json_decode(os.getenv("RULELENS_CMD")), width = 70 })
