--- monad.rules: the evaluator of rule files (guards written as data, see
--- stdlib/rules/README.md). A pack hands it its checked parameters and a
--- function that returns the families of its rule files; register builds
--- one index over every enabled rule (a keyword prefilter and a table from
--- program name to rules) and registers one BeforeTool hook that walks each
--- command of a shell tool call through wrappers, runners (bundle exec,
--- aws-vault exec, kubectl exec, ...), nested shells and pipelines into
--- shells, and asks or denies with the reason of the strongest rule that
--- matched:
---
---     require("monad.rules").register(PACK, P, require("monad.rules.stdlib").load)
---
--- A reason reads "<pack> [<family>:<rule>]: <what it destroys>; instead:
--- <the safer way>".

local re = require("re")
local C = require("monad.commands")
local commands, unwrap, basename, command_texts = C.commands, C.unwrap, C.basename, C.command_texts

local lower, sub, find, byte, concat = string.lower, string.sub, string.find, string.byte, table.concat

-- MAX_DEPTH bounds the text fed to shells that is checked again (a
-- here-document of a here-document ...).
local MAX_DEPTH = 4

-- prog_key is the index key of a command word: its base name, lowercased,
-- without a Windows .exe suffix.
local function prog_key(w)
  local b = basename(w)
  if sub(b, -4) == ".exe" then
    b = sub(b, 1, -5)
  end
  return b
end

-- unversioned drops a version from a program name: python3.12 -> python.
local function unversioned(b)
  local i = find(b, "[%d.]+$")
  if i and i > 1 then
    return sub(b, 1, i - 1)
  end
  return nil
end

-- RUNNERS run the command their arguments name: after the runner's own
-- words (path), its options (those of v take the next word) and operands
-- (a container, a profile), or after "--" when there is one.
local function set(s)
  local t = {}
  for x in string.gmatch(s or "", "%S+") do
    t[x] = true
  end
  return t
end

local DOCKER_V = set("-e --env --env-file -u --user -w --workdir --detach-keys")
local RUNNERS = {
  bundle = { { path = { "exec" } } },
  bundler = { { path = { "exec" } } },
  poetry = { { path = { "run" } } },
  pipenv = { { path = { "run" } } },
  pdm = { { path = { "run" } } },
  hatch = { { path = { "run" } } },
  rye = { { path = { "run" } } },
  uv = { { path = { "run" }, v = set("--with --python -p --project --directory --env-file --package --extra --group") } },
  pnpm = { { path = { "exec" } }, { path = { "dlx" } } },
  yarn = { { path = { "exec" } }, { path = { "dlx" } } },
  npm = { { path = { "exec" } }, { path = { "x" } } },
  bun = { { path = { "x" } } },
  ["aws-vault"] = { { path = { "exec" }, operands = 1, v = set("-d --duration -t --mfa-token --region") } },
  awsume = {},
  doppler = { { path = { "run" }, v = set("-p --project -c --config --token") } },
  op = { { path = { "run" }, v = set("--env-file --account") } },
  infisical = { { path = { "run" }, v = set("--env --projectId --path --token") } },
  chamber = { { path = { "exec" }, dashdash = true } },
  dotenv = { { path = {}, v = set("-e -v -c") } },
  dotenvx = { { path = { "run" }, v = set("-f --env-file") } },
  direnv = { { path = { "exec" }, operands = 1 } },
  envchain = { { path = {}, operands = 1 } },
  heroku = { { path = { "run" }, v = set("-a --app -r --remote -e --env -s --size --type") } },
  railway = { { path = { "run" }, v = set("-s --service -e --environment") } },
  docker = { { path = { "exec" }, operands = 1, v = DOCKER_V }, { path = { "compose", "exec" }, operands = 1, v = DOCKER_V }, { path = { "compose", "run" }, operands = 1, v = DOCKER_V } },
  podman = { { path = { "exec" }, operands = 1, v = DOCKER_V } },
  ["docker-compose"] = { { path = { "exec" }, operands = 1, v = DOCKER_V }, { path = { "run" }, operands = 1, v = DOCKER_V } },
  kubectl = { { path = { "exec" }, operands = 1, v = set("-c --container -n --namespace --context -f --filename") } },
  ["systemd-run"] = { { path = {}, v = set("--unit -u -p --property --description --slice --uid --gid -E --setenv --working-directory -M --machine -H --host --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --timer-property") } },
  oc = { { path = { "exec" }, operands = 1, v = set("-c --container -n --namespace") } },
}

-- run_through returns the words of the command a runner runs, or nil.
local function run_through(w)
  local specs = RUNNERS[prog_key(w[1])]
  if specs == nil then
    return nil
  end
  for _, s in ipairs(specs) do
    local ok = true
    for k, p in ipairs(s.path) do
      if w[k + 1] ~= p then
        ok = false
        break
      end
    end
    if ok then
      local i = #s.path + 2
      for k = i, #w do
        if w[k] == "--" then
          local out = {}
          for j = k + 1, #w do
            out[#out + 1] = w[j]
          end
          return out
        end
      end
      if not s.dashdash then
        local operands = s.operands or 0
        while i <= #w do
          local a = w[i]
          if byte(a, 1) == 45 then
            if s.v and s.v[a] then
              i = i + 1
            end
          elseif operands > 0 then
            operands = operands - 1
          else
            break
          end
          i = i + 1
        end
        if i <= #w then
          local out = {}
          for j = i, #w do
            out[#out + 1] = w[j]
          end
          return out
        end
      end
    end
  end
  return nil
end

local OFF = set("false 0 no off none")

local SHELLS = set("sh bash zsh dash ksh mksh ash fish")
-- PACKAGE_RUNNERS run a package's binary named as their first argument.
local PACKAGE_RUNNERS = set("yarn pnpm bun")

-- SCHEDULERS run the script fed to them later (at, batch).
local SCHEDULERS = set("at batch")

---------------------------------------------------------------------------
-- The view of one command: positional words and options
---------------------------------------------------------------------------

-- parse reads the words of w from start: positional words (pos, lowered in
-- low; maybe[i] when the word follows an option that may take it as its
-- value), option names (fset and flist; a cluster -rf names -r and -f too,
-- unless the program reads -long options) and the text.
local function parse(w, start, spec)
  local pos, low, maybe, fset, flist = {}, {}, {}, {}, {}
  local vals = spec and spec.v
  local single = spec and spec.sd
  local i, n, ended, after = start, #w, false, false
  while i <= n do
    local a = w[i]
    if ended or a == "-" or byte(a, 1) ~= 45 then
      local k = #pos + 1
      pos[k] = a
      low[k] = lower(a)
      maybe[k] = after
      after = false
    elseif a == "--" then
      ended = true
      after = false
    else
      local name = a
      local eq = find(a, "=", 1, true)
      if eq then
        name = sub(a, 1, eq - 1)
      end
      -- --x=false turns the option off
      if not (eq and OFF[lower(sub(a, eq + 1))]) then
        fset[name] = true
        flist[#flist + 1] = name
      end
      if not single and byte(name, 2) ~= 45 and #name > 2 then
        for k = 2, #name do
          fset["-" .. sub(name, k, k)] = true
        end
      end
      if vals and vals[name] and not eq then
        i = i + 1
        after = false
      else
        after = eq == nil
      end
    end
    i = i + 1
  end
  return { pos = pos, low = low, maybe = maybe, fset = fset, flist = flist, w = w, start = start }
end

local function word_ok(p, x)
  if p.e[x] then
    return true
  end
  if p.p then
    for _, pat in ipairs(p.p) do
      if find(x, pat) then
        return true
      end
    end
  end
  return false
end

-- match_path matches a subcommand path against the positional words from
-- the first one, where a word that may be an option's value may be skipped
-- (tracking every place in the path at once, so the cost is words x path
-- length); it returns the index of the first word after the path, or nil.
local function match_path(path, v)
  local low, maybe = v.low, v.maybe
  local m = #path
  local states = { 1 }
  for i = 1, #low do
    local x = low[i]
    local nxt, seen = {}, {}
    for _, j in ipairs(states) do
      if word_ok(path[j], x) then
        if j == m then
          return i + 1
        end
        if not seen[j + 1] then
          seen[j + 1] = true
          nxt[#nxt + 1] = j + 1
        end
      end
      if maybe[i] and not seen[j] then
        seen[j] = true
        nxt[#nxt + 1] = j
      end
    end
    if #nxt == 0 then
      return nil
    end
    states = nxt
  end
  return nil
end

local function has_flag(v, f)
  if find(f, "|", 1, true) then
    for alt in string.gmatch(f, "[^|]+") do
      if has_flag(v, alt) then
        return true
      end
    end
    return false
  end
  if sub(f, -1) ~= "*" then
    return v.fset[f] == true
  end
  local pre = sub(f, 1, -2)
  for _, x in ipairs(v.flist) do
    if sub(x, 1, #pre) == pre then
      return true
    end
  end
  return false
end

-- option_values returns the values given to option f: "--f V", "--f=V",
-- "-fV", "-f V".
local function option_values(v, f, out)
  local w = v.w
  local long = sub(f, 1, 2) == "--" or #f > 2
  for i = v.start, #w do
    local a = w[i]
    if a == "--" then
      break
    end
    if a == f then
      if w[i + 1] then
        out[#out + 1] = w[i + 1]
      end
    elseif long then
      if sub(a, 1, #f + 1) == f .. "=" then
        out[#out + 1] = sub(a, #f + 2)
      end
    elseif not long and byte(a, 1) == 45 and byte(a, 2) ~= 45 then
      -- a cluster: -XDELETE, -sXDELETE, -n=prod (letters before the option)
      local k = find(a, sub(f, 2, 2), 2, true)
      if k and k > 1 and not find(sub(a, 2, k - 1), "[^%a]") then
        local x = sub(a, k + 1)
        if byte(x, 1) == 61 then
          x = sub(x, 2)
        end
        if x == "" then
          x = w[i + 1]
        end
        out[#out + 1] = x
      end
    end
  end
  return out
end

---------------------------------------------------------------------------
-- HTTP calls
---------------------------------------------------------------------------

local METHODS = set("GET HEAD POST PUT PATCH DELETE OPTIONS PURGE")
local HTTPIE = set("http https xh xhs")
local POWERSHELL = set("invoke-restmethod irm invoke-webrequest iwr")

-- http_call returns the method and the candidate URLs of an HTTP client's
-- command.
local function http_call(prog, v)
  local w = v.w
  local urls = {}
  local method
  if HTTPIE[prog] then
    -- [METHOD] URL [ITEM ...], after options (whose values may look like
    -- positional words)
    for k, p in ipairs(v.pos) do
      if METHODS[string.upper(p)] and v.pos[k + 1] then
        return string.upper(p), { v.pos[k + 1] }
      end
      if not v.maybe[k] then
        method = "GET"
        for j = k + 1, #v.pos do
          if find(v.pos[j], "^[%w_.-]+:?=") then
            method = "POST"
          end
        end
        return method, { p }
      end
    end
    return "GET", urls
  end
  if POWERSHELL[prog] then
    method = "GET"
    for i = v.start, #w do
      local a = lower(w[i])
      if (a == "-method" or a == "-me") and w[i + 1] then
        method = string.upper(w[i + 1])
      elseif (a == "-uri" or a == "-u") and w[i + 1] then
        urls[#urls + 1] = w[i + 1]
      end
    end
    for _, p in ipairs(v.pos) do
      urls[#urls + 1] = p
    end
    return method, urls
  end
  if prog == "wget" or prog == "wget2" then
    local m = option_values(v, "--method", {})
    method = m[#m] and string.upper(m[#m]) or nil
    if method == nil and (has_flag(v, "--post-data") or has_flag(v, "--post-file")) then
      method = "POST"
    end
    for _, p in ipairs(v.pos) do
      urls[#urls + 1] = p
    end
    return method or "GET", urls
  end
  -- curl and curlie
  local m = option_values(v, "-X", option_values(v, "--request", {}))
  method = m[#m] and string.upper(m[#m]) or nil
  if method == nil then
    if has_flag(v, "-I") or has_flag(v, "--head") then
      method = "HEAD"
    elseif has_flag(v, "-T") or has_flag(v, "--upload-file") then
      method = "PUT"
    elseif has_flag(v, "-d") or has_flag(v, "--data*") or has_flag(v, "-F") or has_flag(v, "--form*") or has_flag(v, "--json") then
      method = has_flag(v, "-G") and "GET" or "POST"
    else
      method = "GET"
    end
  end
  option_values(v, "--url", urls)
  for _, p in ipairs(v.pos) do
    urls[#urls + 1] = p
  end
  return method, urls
end

---------------------------------------------------------------------------
-- Rules
---------------------------------------------------------------------------

local LOCAL_DB = [[(?i)(://([^/@\s]*@)?(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0|host\.docker\.internal)([:/]|$)|sqlite|(^|=)file:|\.db$|^(RAILS_ENV|RACK_ENV|MIX_ENV|APP_ENV|NODE_ENV|DJANGO_ENV|FLASK_ENV|ENV|ENVIRONMENT)=(test|testing|development|dev|local)$)]]
local PROD = [[(?i)(^|[=_.:/-])(prod|production|live)([_.:/-]|$)]]

-- assigns_of lists the NAME=value words of a command: its assignments and
-- those a wrapper (env, sudo) holds before the command it runs.
local function assigns_of(c, w)
  local out = {}
  for k, x in pairs(c.assigns) do
    out[#out + 1] = k .. "=" .. x
  end
  local words = c.words
  for i = 1, #words - #w do
    if find(words[i], "^[%a_][%w_]*=") then
      out[#out + 1] = words[i]
    end
  end
  return out
end

-- local_target says whether the command names only a local database (a
-- localhost URL, a SQLite file) and nothing that looks like production.
local function local_target(w, assigns)
  local seen = false
  for _, list in ipairs({ w, assigns }) do
    for _, x in ipairs(list) do
      if re.find(x, PROD) then
        return false
      end
      if re.find(x, LOCAL_DB) then
        seen = true
      end
    end
  end
  return seen
end

local function any_re(list, rx, from)
  for k = from or 1, #list do
    if re.find(list[k], rx) then
      return true
    end
  end
  return false
end

-- input_of is the text a command reads on its standard input, as far as
-- the line shows it: here-documents, here-strings, the text an echo or
-- printf before it in the pipeline prints, and that command itself.
local function input_of(c)
  local parts = {}
  for _, rd in ipairs(c.redirects) do
    if rd.body then
      parts[#parts + 1] = rd.body
    elseif rd.op == "<<<" then
      parts[#parts + 1] = rd.target
    end
  end
  if c.fed then
    parts[#parts + 1] = c.fed
  end
  if c.from then
    parts[#parts + 1] = c.from
  end
  return concat(parts, "\n")
end

local WRITE_OPS = set("> >> >| &> &>>")

-- writes_to says whether an output redirection of the command targets a
-- path that rx matches.
local function writes_to(c, rx)
  for _, rd in ipairs(c.redirects) do
    if WRITE_OPS[rd.op] and re.find(rd.target, rx) then
      return true
    end
  end
  return false
end

-- matches says whether rule r matches the command.
local function matches(r, prog, v, c, w, state)
  local rest = 1
  if r.nsub then
    for _, path in ipairs(r.nsub) do
      if match_path(path, v) then
        return false
      end
    end
  end
  if r.sub then
    rest = nil
    for _, path in ipairs(r.sub) do
      rest = match_path(path, v)
      if rest then
        break
      end
    end
    if rest == nil then
      return false
    end
  end
  if r.fl then
    local ok = false
    for _, f in ipairs(r.fl) do
      if has_flag(v, f) then
        ok = true
        break
      end
    end
    if not ok then
      return false
    end
  end
  if r.af then
    for _, f in ipairs(r.af) do
      if not has_flag(v, f) then
        return false
      end
    end
  end
  if r.nf then
    for _, f in ipairs(r.nf) do
      if has_flag(v, f) then
        return false
      end
    end
  end
  if r.min and #v.pos - rest + 1 < r.min then
    return false
  end
  if r.args and not any_re(v.pos, r.args, rest) then
    return false
  end
  if r.nargs and any_re(v.pos, r.nargs, rest) then
    return false
  end
  if r.last and (#v.pos < rest or not re.find(v.pos[#v.pos], r.last)) then
    return false
  end
  if r.vals then
    for _, p in ipairs(r.vals) do
      local got = {}
      for _, f in ipairs(p.f) do
        option_values(v, f, got)
      end
      if not any_re(got, p.m) then
        return false
      end
    end
  end
  if r.text or r.ntext then
    state.text = state.text or concat(w, " ")
    if r.text and not re.find(state.text, r.text) then
      return false
    end
    if r.ntext and re.find(state.text, r.ntext) then
      return false
    end
  end
  if r.asg or r.loc then
    state.assigns = state.assigns or assigns_of(c, w)
    if r.asg and not any_re(state.assigns, r.asg) then
      return false
    end
    if r.loc and local_target(w, state.assigns) then
      return false
    end
  end
  if r.input then
    state.input = state.input or input_of(c)
    if not re.find(state.input, r.input) then
      return false
    end
  end
  if r.writes and not writes_to(c, r.writes) then
    return false
  end
  if r.http then
    if state.method == nil then
      state.method, state.urls = http_call(prog, v)
    end
    if not r.http.m[state.method] then
      return false
    end
    if r.http.url and not any_re(state.urls, r.http.url) then
      return false
    end
  end
  return true
end

local RANK = { ask = 1, deny = 2 }
local NONE = {}

-- build resolves the decision of every rule (settings: name -> decision,
-- the most specific name winning: rule id, family, group, all) and indexes
-- the enabled ones by the first word of each program.
local function build(pack, families, P)
  local settings, known = {}, { all = true }
  for _, f in ipairs(families) do
    known[f.family], known[f.group] = true, true
    for _, r in ipairs(f.rules) do
      known[r.id] = true
    end
  end
  for _, d in ipairs({ "deny", "ask", "off" }) do
    for _, name in ipairs(P[d] or {}) do
      if not known[name] then
        error(pack .. ": parameter " .. d .. ": unknown family, group or rule " .. name, 0)
      end
      if settings[name] and settings[name] ~= d then
        error(pack .. ": parameter " .. d .. ": " .. name .. " is in " .. settings[name] .. " too", 0)
      end
      settings[name] = d
    end
  end
  local index, keys, count = {}, {}, 0
  for _, f in ipairs(families) do
    for _, r in ipairs(f.rules) do
      local d = settings[r.id] or settings[f.family] or settings[f.group] or settings.all or r.d
      if d ~= "off" then
        r.d = d
        r.rank = RANK[d]
        count = count + 1
        for _, pw in ipairs(r.prog) do
          local list = index[pw[1]]
          if list == nil then
            list = {}
            index[pw[1]] = list
          end
          list[#list + 1] = { r = r, pw = pw, spec = f.programs[pw[1]] }
          if pw[1] ~= "*" then
            keys[pw[#pw]] = true
          end
        end
        for _, k in ipairs(r.kw or {}) do
          keys[k] = true
        end
      end
    end
  end
  return index, keys, count
end

-- register builds the index of the families load() returns under the
-- pack's parameters P (matcher, commandFields, deny, ask, off, exempt) and
-- registers the BeforeTool hook.
local function register(pack, P, load)
  local index, keys, count = build(pack, load(), P)
  if count == 0 then
    return
  end

  -- hits is the prefilter: does a word of the line name a program of an
  -- enabled rule? Quotes and backslashes are dropped first, so that
  -- "terraform" and terr\aform are seen.
  local function hits(line)
    local s = lower(line)
    if find(s, "[\\'\"]") then
      s = string.gsub(s, "[\\'\"]", "")
    end
    for _, t in ipairs(re.findall(s, "[a-z0-9_.:+@-]+")) do
      if keys[t] then
        return true
      end
      local u = unversioned(t)
      if u and keys[u] then
        return true
      end
      if sub(t, -4) == ".exe" and keys[sub(t, 1, -5)] then
        return true
      end
    end
    return false
  end

  local check_line

  local check_words

  -- check_runners checks a command, then the command each runner in it
  -- runs (aws-vault exec P -- terraform destroy: aws-vault's rules, then
  -- terraform's).
  local function check_runners(c, w, best, depth)
    for _ = 1, 8 do
      best = check_words(c, w, best, depth)
      local inner = run_through(w)
      if inner == nil or #inner == 0 then
        break
      end
      w = unwrap(inner)
    end
    return best
  end

  -- check_words finds the strongest rule that matches one command.
  check_words = function(c, w, best, depth)
    if #w == 0 then
      return best
    end
    local prog = prog_key(w[1])
    -- yarn cdk destroy, pnpm prisma ...: a package manager runs the bin
    if PACKAGE_RUNNERS[prog] and w[2] and (index[prog_key(w[2])] or index[unversioned(prog_key(w[2])) or ""]) then
      local inner = {}
      for k = 2, #w do
        inner[#inner + 1] = w[k]
      end
      w = inner
      prog = prog_key(w[1])
    end
    local list = index[prog]
    if list == nil then
      local u = unversioned(prog)
      list = u and index[u]
    end
    -- the rules of the command's program (and those of every program):
    -- a fallback only when no other rule matched the command
    local views, state = {}, {}
    local cand, specific = nil, false
    for pass = 1, 2 do
      if pass == 2 and specific then
        break
      end
      for _, l in ipairs({ list or NONE, index["*"] or NONE }) do
        for _, e in ipairs(l) do
          local r = e.r
          if (pass == 2) == (r.fb == true) and (cand == nil or r.rank > cand.rank) then
            local pw, ok = e.pw, true
            for k = 2, #pw do
              if w[k] == nil or prog_key(w[k]) ~= lower(pw[k]) then
                ok = false
                break
              end
            end
            if ok then
              local key = #pw
              local v = views[key]
              if v == nil or v.spec ~= e.spec then
                v = parse(w, #pw + 1, e.spec)
                v.spec = e.spec
                views[key] = v
              end
              if matches(r, prog, v, c, w, state) then
                cand, specific = r, pass == 1
              end
            end
          end
        end
      end
    end
    if cand and (best == nil or cand.rank > best.rank) then
      best = cand
    end
    -- text fed to a shell on its standard input
    if (SHELLS[prog] or SCHEDULERS[prog]) and depth < MAX_DEPTH then
      local script = SCHEDULERS[prog] or #w == 1 or (#w == 2 and (w[2] == "-s" or w[2] == "-" or w[2] == "-e" or w[2] == "-x"))
      if script then
        for _, rd in ipairs(c.redirects) do
          if rd.body then
            best = check_line(rd.body, best, depth + 1)
          elseif rd.op == "<<<" then
            best = check_line(rd.target, best, depth + 1)
          end
        end
        if c.fed then
          best = check_line(c.fed, best, depth + 1)
        end
      end
    end
    return best
  end

  check_line = function(line, best, depth)
    local cmds = commands(line)
    -- printed: what echo and printf print since the last command that
    -- ended a pipeline at the top level; from: the command before, when
    -- it pipes into this one
    local printed, from = {}, nil
    for _, c in ipairs(cmds) do
      local w = unwrap(c.words)
      local fed = #printed > 0 and concat(printed, "\n") or nil
      if fed or from then
        c = { words = c.words, assigns = c.assigns, redirects = c.redirects, depth = c.depth, fed = fed, from = from }
      end
      best = check_runners(c, w, best, depth)
      if best and best.rank == 2 then
        return best
      end
      local pipe = c.op == "|" or c.op == "|&"
      local p = #w > 0 and prog_key(w[1]) or ""
      if (p == "echo" or p == "printf") and #w > 1 then
        printed[#printed + 1] = concat(w, " ", 2)
      end
      from = pipe and concat(w, " ") or nil
      if not pipe and c.depth == 0 then
        printed = {}
      end
    end
    return best
  end

  local function exempt(line)
    for _, rx in ipairs(P.exempt or {}) do
      if re.find(line, rx) then
        return true
      end
    end
    return false
  end

  C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.matcher,
    texts = function(input) return command_texts(input.toolInput, P.commandFields) end },
    function(lines)
      local best = nil
      for i = 1, #lines do
        local line = lines[i]
        if hits(line) and not C.matches_any(line, P.exempt or NONE) then
          local ok, found = pcall(check_line, line, best, 0)
          if not ok then
            if find(tostring(found), "shell.commands", 1, true) then
              -- beyond the parser's bounds: the line names a guarded
              -- program, so a person decides
              return { decision = "ask", reason = pack .. " [limit]: the command is too long or nested too deep to check; instead: split it into simpler commands" }
            end
            error(found, 0)
          end
          best = found
          if best and best.rank == 2 then
            break
          end
        end
      end
      if best then
        return { decision = best.d, reason = pack .. " [" .. best.id .. "]: " .. best.why .. "; instead: " .. best.inst }
      end
      return nil
    end)
end

return {
  ---Builds the index of the families load() returns under the checked
  ---parameters P of the pack (matcher, commandFields, deny, ask, off,
  ---exempt) and registers its BeforeTool hook. An unknown name in deny, ask
  ---or off, or one in two of them, raises "<pack>: parameter ...".
  ---@type fun(pack: string, P: table, load: fun(): table[])
  register = register,
}
