-- Shared by the headless Neovim drivers: the result record, the exit sequence (write OUT,
-- stop the clients, quit with the code) and the sidebar readers.
-- Env: OUT (json), WS (repo).
local H = {}
H.out_path = assert(os.getenv("OUT"))
H.ws = assert(os.getenv("WS"))
H.results = { steps = {} }

function H.step(name) table.insert(H.results.steps, name) end

function H.finish(code)
  local f = io.open(H.out_path, "w")
  f:write(vim.fn.json_encode(H.results))
  f:close()
  local rl = package.loaded["rulelens"]
  if rl then
    for _, c in ipairs(rl.get_clients()) do
      if vim.fn.has("nvim-0.11") == 1 then c:stop() else c.stop() end
    end
    vim.wait(3000, function() return #rl.get_clients() == 0 end, 50)
  end
  vim.cmd(code == 0 and "qall!" or ("cquit! " .. code))
end

function H.sidebar_lines()
  local s = require("rulelens.sidebar")._state
  if not (s.buf and vim.api.nvim_buf_is_valid(s.buf)) then return {} end
  return vim.api.nvim_buf_get_lines(s.buf, 0, -1, false)
end

function H.sidebar_has(text)
  for _, l in ipairs(H.sidebar_lines()) do
    if l:find(text, 1, true) then return true end
  end
  return false
end

--- Wait until the RuleLens client of ``bufnr`` is initialized (or fail the driver).
function H.attached(rulelens, bufnr)
  assert(vim.wait(20000, function()
    local c = rulelens.get_clients(bufnr)[1]
    return c ~= nil and c.initialized
  end, 50), "server did not attach")
end

--- End a driver whose body ran in ``pcall``: record the error, write OUT, quit.
function H.report(ok, err)
  if not ok then
    H.results.error = tostring(err)
    io.stdout:write("ERROR " .. tostring(err) .. "\n")
  end
  H.finish(ok and 0 or 1)
end

return H
