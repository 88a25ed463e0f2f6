-- Headless driver for every agent's memory in Neovim (issue 24; 0.7.2 and 0.11): the picker
-- grouped by agent with the injected / on-demand mark, the live prompt-buffer search (real
-- keystrokes, re-searched as typed), and remember into Claude Code's memory.
-- Env: RULELENS_PLUGIN (the nvim/ dir), RULELENS_CMD (JSON list), WS (repo), OUT (json)
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/harness.lua")
local ws, results, step, finish = H.ws, H.results, H.step, H.finish

-- vim.ui.select is the picker's API: record what it is shown, choose `want` (a label
-- substring) or the first item, as a user would.
local picked, want = nil, nil
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, it in ipairs(items) do labels[i] = opts.format_item and opts.format_item(it) or it end
  picked = { prompt = opts.prompt, labels = labels }
  for i, l in ipairs(labels) do
    if want and l:find(want, 1, true) then return on_choice(items[i], i) end
  end
  on_choice(items[1], 1)
end

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

  vim.cmd("RuleLensMemoryAgent all")
  vim.cmd("RuleLensMemory stripe webhook retries")
  assert(vim.wait(30000, function() return picked ~= nil end, 50), "no picker")
  results.grouped = picked
  results.groups = {}
  for _, g in ipairs(memory.groups(memory.last)) do table.insert(results.groups, g.label) end
  step("grouped")

end)

-- The live search and remember run from the main loop: typed keys are processed there (a
-- script that waits with vim.wait would never see them), so each stage polls on a timer.
local function fail(e)
  results.error = tostring(e)
  io.stdout:write("ERROR " .. tostring(e) .. "\n")
  finish(1)
end

local function poll(what, cond, nxt)
  local started = vim.loop.now()
  local function tick()
    local okc, v = pcall(cond)
    if okc and v then
      local okn, e = pcall(nxt)
      if not okn then fail(e) end
    elseif vim.loop.now() - started > 30000 then
      fail(what)
    else
      vim.defer_fn(tick, 50)
    end
  end
  vim.defer_fn(tick, 50)
end

local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), "t", false)
end

local function live()
  local memory = require("rulelens.memory")
  vim.cmd("edit " .. ws .. "/AGENTS.md")
  local state = memory.live()
  results.live_empty = vim.api.nvim_buf_get_lines(state.results, 0, -1, false)
  keys("stripe webhook")
  poll("the live search did not answer the typed query",
    function() return state.query == "stripe webhook" end, function()
      results.live_first = vim.api.nvim_buf_get_lines(state.results, 0, -1, false)
      keys(string.rep("<BS>", 14) .. "refunds")
      poll("typing did not re-search", function() return state.query == "refunds" end, function()
        results.live_second = vim.api.nvim_buf_get_lines(state.results, 0, -1, false)
        results.live_searches = state.seq
        keys("<CR>")
        poll("<CR> did not open the top hit", function()
          return vim.api.nvim_buf_get_name(0):find("refunds.md", 1, true) ~= nil
        end, function()
          results.live_opened = vim.api.nvim_buf_get_name(0)
          vim.cmd("stopinsert")
          step("live")
          picked, want = nil, "Claude Code"
          memory.remember("ship on Tuesdays", { confirm = true })
          poll("not remembered", function() return memory.remembered ~= nil end, function()
            results.remember_agents = picked
            results.preview = memory.preview
            results.remembered = memory.remembered
            step("remember")
            finish(0)
          end)
        end)
      end)
    end)
end
if not ok then
  results.error = tostring(err)
  io.stdout:write("ERROR " .. tostring(err) .. "\n")
  finish(1)
else
  local okl, e = pcall(live)
  if not okl then fail(e) end
end
