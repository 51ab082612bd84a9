--- monad.rules: the evaluator of rule files (guards written as data, see
--- stdlib/rules/README.md). A pack hands it its checked parameters and a
--- function that returns the rule set of its rule files (rendered by
--- package stdlib: a keyword prefilter, and each family behind a function
--- that builds its rules when a command first names one of its programs);
--- register registers one BeforeTool hook that walks each
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
-- PowerShell lines (a PowerShell tool, or what only PowerShell runs) are
-- read by the PowerShell parser, so that the rules meet their programs
local PW = require("monad.pwsh")
local commands, unwrap, basename, command_texts = C.commands, C.unwrap, C.basename, C.command_texts

local lower, sub, find, byte, concat = string.lower, string.sub, string.find, string.byte, table.concat

-- The code that runs per call walks lists with numeric for loops: in this
-- runtime ipairs costs a call into the host per element, several times the
-- loop body. (build, which runs once per VM, keeps ipairs.)

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
  local last = byte(b, -1)
  if last == nil or not ((last >= 48 and last <= 57) or last == 46) then
    return nil
  end
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

-- The table is built again for each runner a VM meets, and only that
-- runner's entry kept: a VM's retained memory is walked between calls, and
-- the whole table would be most of this library's share.
local function all_runners()
  local DOCKER_V = set("-e --env --env-file -u --user -w --workdir --detach-keys")
  return {
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
end

-- RUNNER_NAMES is the set of the runners' names, built when a command
-- first needs it (a local function that builds once): most starts of
-- monad-hooks run check no command here (BenchmarkCLIRun).
local RUNNER_NAMES = nil
local runners = {}

-- runners_of returns the specs of a runner (nil: not one).
local function runners_of(name)
  if RUNNER_NAMES == nil then
    RUNNER_NAMES = {}
    for n in pairs(all_runners()) do
      RUNNER_NAMES[n] = true
    end
  end
  if not RUNNER_NAMES[name] then
    return nil
  end
  local r = runners[name]
  if r == nil then
    r = all_runners()[name]
    runners[name] = r
  end
  return r
end

-- run_through returns the words of the command a runner runs, or nil.
local function run_through(w)
  local specs = runners_of(prog_key(w[1]))
  if specs == nil then
    return nil
  end
  local t1 = specs
  for i1 = 1, #t1 do
    local s = t1[i1]
    local ok = true
    local t2 = s.path
    for k = 1, #t2 do
      local p = t2[k]
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
  local fpos = {} -- fpos[k]: how many positional words come before flist[k]
  local clusters = nil -- the letters of -abc clusters, which name -a, -b, -c
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
        fpos[#flist] = #pos
      end
      if not single and byte(name, 2) ~= 45 and #name > 2 then
        clusters = clusters and clusters .. sub(name, 2) or sub(name, 2)
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
  return {
    pos = pos, low = low, maybe = maybe, fset = fset, flist = flist, fpos = fpos, clusters = clusters,
    w = w, start = start, global = spec and spec.g, single = single,
  }
end

local function word_ok(p, x)
  if p.e[x] then
    return true
  end
  if p.p then
    local t3 = p.p
    for i3 = 1, #t3 do
      local pat = t3[i3]
      if find(x, pat) then
        return true
      end
    end
  end
  -- a list of kinds (kubectl delete deploy,svc,ing NAME): any of them
  if find(x, ",", 1, true) and not find(x, "[%s=]") then
    for part in string.gmatch(x, "[^,]+") do
      if word_ok(p, part) then
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
    local t4 = states
    for i4 = 1, #t4 do
      local j = t4[i4]
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

-- has_flag_after is has_flag for the options that come after the first
-- skip positional words only (the subcommand's, for a program whose
-- options before its subcommand are its own: git -C DIR switch main gives
-- git's -C, not switch's).
local function has_flag_after(v, fp, skip)
  local fl, fpos = v.flist, v.fpos
  for k = 1, #fl do
    if fpos[k] >= skip then
      local name = fl[k]
      local cluster = not v.single and byte(name, 2) ~= 45 and #name > 2
      for i = 1, #fp do
        local alt = fp[i]
        local ex = alt.exact
        if ex then
          if name == ex or (alt.letter and cluster and find(name, alt.letter, 2, true)) then
            return true
          end
        elseif sub(name, 1, #alt.pre) == alt.pre then
          return true
        end
      end
    end
  end
  return false
end

-- has_flag says whether the command gives an option of flag pattern fp:
-- a list of alternatives, each {exact = "-x"} or {pre = "--delete"} (see
-- compile_flags); with skip, only the options after the first skip
-- positional words count (has_flag_after).
local function has_flag(v, fp, skip)
  if skip and skip > 0 then
    return has_flag_after(v, fp, skip)
  end
  for i = 1, #fp do
    local alt = fp[i]
    local ex = alt.exact
    if ex then
      if v.fset[ex] then
        return true
      end
      if alt.letter and v.clusters and find(v.clusters, alt.letter, 1, true) then
        return true
      end
    else
      local pre = alt.pre
      local fl = v.flist
      for k = 1, #fl do
        if sub(fl[k], 1, #pre) == pre then
          return true
        end
      end
    end
  end
  return false
end

-- compile_flags turns flag patterns ("-f", "--delete*", "-d|--delete")
-- into the lists has_flag reads.
local function compile_flags(list)
  if list == nil then
    return nil
  end
  local out = {}
  for _, f in ipairs(list) do
    local fp = {}
    for alt in string.gmatch(f, "[^|]+") do
      if sub(alt, -1) == "*" then
        fp[#fp + 1] = { pre = sub(alt, 1, -2) }
      elseif #alt == 2 and sub(alt, 2, 2) ~= "-" then
        fp[#fp + 1] = { exact = alt, letter = sub(alt, 2, 2) }
      else
        fp[#fp + 1] = { exact = alt }
      end
    end
    out[#out + 1] = fp
  end
  return out
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
local F_WGET_POST = compile_flags({ "--post-data|--post-file" })[1]
local F_HEAD = compile_flags({ "-I|--head" })[1]
local F_UPLOAD = compile_flags({ "-T|--upload-file" })[1]
local F_DATA = compile_flags({ "-d|--data*|-F|--form*|--json" })[1]
local F_GET = compile_flags({ "-G|--get" })[1]
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
    local t6 = v.pos
    for k = 1, #t6 do
      local p = t6[k]
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
    local t7 = v.pos
    for i7 = 1, #t7 do
      local p = t7[i7]
      urls[#urls + 1] = p
    end
    return method, urls
  end
  if prog == "wget" or prog == "wget2" then
    local m = option_values(v, "--method", {})
    method = m[#m] and string.upper(m[#m]) or nil
    if method == nil and has_flag(v, F_WGET_POST) then
      method = "POST"
    end
    local t8 = v.pos
    for i8 = 1, #t8 do
      local p = t8[i8]
      urls[#urls + 1] = p
    end
    return method or "GET", urls
  end
  -- curl and curlie
  local m = option_values(v, "-X", option_values(v, "--request", {}))
  method = m[#m] and string.upper(m[#m]) or nil
  if method == nil then
    if has_flag(v, F_HEAD) then
      method = "HEAD"
    elseif has_flag(v, F_UPLOAD) then
      method = "PUT"
    elseif has_flag(v, F_DATA) then
      method = has_flag(v, F_GET) and "GET" or "POST"
    else
      method = "GET"
    end
  end
  option_values(v, "--url", urls)
  local t9 = v.pos
  for i9 = 1, #t9 do
    local p = t9[i9]
    urls[#urls + 1] = p
  end
  return method, urls
end

---------------------------------------------------------------------------
-- Rules
---------------------------------------------------------------------------

local LOCAL_DB = [[(?i)(://([^/@\s]*@)?(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0|host\.docker\.internal)([:/]|$)|sqlite|(^|=)file:|\.db$|^(RAILS_ENV|RACK_ENV|MIX_ENV|APP_ENV|NODE_ENV|DJANGO_ENV|FLASK_ENV|ENV|ENVIRONMENT)=(test|testing|development|dev|local)$|^--env=(test|testing|development|dev|local)$|^--settings=\S*[._](tests?|local|dev)(\.|$))]]
local PROD = [[(?i)(^|[=_.:/-])(prod|production|live)([_.:/-]|$)]]

-- assigns_of lists the NAME=value words of a command's environment: its
-- assignments, those a wrapper (env, sudo) holds before the command it
-- runs, and the variables exported earlier on the line (c.env, see
-- monad.commands env_tracker) that these do not set.
local function assigns_of(c, w)
  local out, own = {}, {}
  local words = c.words
  -- env -i, env -u NAME, sudo: what reaches the program (monad.commands env_cut)
  local cleared, at, removed = C.env_cut(words)
  removed = removed or {}
  if not cleared then
    for k, x in pairs(c.assigns) do
      if not removed[k] then
        out[#out + 1] = k .. "=" .. x
        own[k] = true
      end
    end
  end
  for i = math.max(at, 1), #words - #w do
    local n = string.match(words[i], "^([%a_][%w_]*)=")
    if n and not removed[n] then
      out[#out + 1] = words[i]
      own[n] = true
    end
  end
  local env = not cleared and c.env
  for i = 1, env and #env or 0 do
    local n = string.match(env[i], "^([^=]*)=")
    if not own[n] and not removed[n] then
      out[#out + 1] = env[i]
    end
  end
  return out
end

-- local_target says whether the command names only a local database (a
-- localhost URL, a SQLite file) and nothing that looks like production.
local function local_target(w, assigns)
  local seen = false
  local t10 = { w, assigns }
  for i10 = 1, #t10 do
    local list = t10[i10]
    local t11 = list
    for i11 = 1, #t11 do
      local x = t11[i11]
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
  local t12 = c.redirects
  for i12 = 1, #t12 do
    local rd = t12[i12]
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
  local t13 = c.redirects
  for i13 = 1, #t13 do
    local rd = t13[i13]
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
    local t14 = r.nsub
    for i14 = 1, #t14 do
      local path = t14[i14]
      if match_path(path, v) then
        return false
      end
    end
  end
  if r.sub then
    rest = nil
    local t15 = r.sub
    for i15 = 1, #t15 do
      local path = t15[i15]
      rest = match_path(path, v)
      if rest then
        break
      end
    end
    if rest == nil then
      return false
    end
  end
  -- a program whose options before its subcommand are its own (globalOptions)
  local skip = v.global and r.sub and rest - 1 or nil
  if r.fl then
    local ok = false
    local t16 = r.fl
    for i16 = 1, #t16 do
      local f = t16[i16]
      if has_flag(v, f, skip) then
        ok = true
        break
      end
    end
    if not ok then
      return false
    end
  end
  if r.af then
    local t17 = r.af
    for i17 = 1, #t17 do
      local f = t17[i17]
      if not has_flag(v, f, skip) then
        return false
      end
    end
  end
  if r.nf then
    local t18 = r.nf
    for i18 = 1, #t18 do
      local f = t18[i18]
      if has_flag(v, f, skip) then
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
    local t19 = r.vals
    for i19 = 1, #t19 do
      local p = t19[i19]
      local got = {}
      local t20 = p.f
      for i20 = 1, #t20 do
        local f = t20[i20]
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

-- HELP are the words that make a command print its manual and do nothing
-- else (terraform and other Go programs take -help too).
local HELP = { ["--help"] = true, ["-help"] = true }
local NONE = {}

-- settings_of reads the parameters deny, ask and off (names of rules,
-- families, groups, "all") against the names of the rule set, and counts
-- the rules they leave on.
local function settings_of(pack, rs, P)
  if rs.on and #(P.deny or NONE) == 0 and #(P.ask or NONE) == 0 and #(P.off or NONE) == 0 then
    -- no name to check or apply: the rules on by default, counted when the
    -- set was generated (names() and the set of every name were a tenth
    -- of the start of monad-hooks run, BenchmarkCLIRun)
    return {}, rs.on
  end
  local names = rs.names()
  local settings, known = {}, { all = true }
  for _, f in ipairs(names) do
    known[f[1]], known[f[2]] = true, true
    for i = 3, #f, 2 do
      known[f[i]] = true
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
  local count = 0
  for _, f in ipairs(names) do
    for i = 3, #f, 2 do
      local d = settings[f[i]] or settings[f[1]] or settings[f[2]] or settings.all or f[i + 1]
      if d ~= "off" then
        count = count + 1
      end
    end
  end
  return settings, count
end

-- compile readies the rules of a family: the decision of each (settings:
-- name -> decision, the most specific name winning: rule id, family,
-- group, all; r.off when off), its options, and the words the command
-- must hold for it (first: one of the first words of its subcommand, nil
-- when a path starts with a glob; kwset: its keywords).
local function compile(f, settings)
  for _, r in ipairs(f.rules) do
    local d = settings[r.id] or settings[f.family] or settings[f.group] or settings.all or r.d
    if d == "off" then
      r.off = true
    else
      r.d = d
      r.rank = RANK[d]
      r.fl, r.af, r.nf = compile_flags(r.fl), compile_flags(r.af), compile_flags(r.nf)
      if r.sub then
        local first = {}
        for _, path in ipairs(r.sub) do
          if path[1].p then
            first = nil
            break
          end
          for wd in pairs(path[1].e) do
            first[#first + 1] = wd
          end
        end
        r.first = first
      end
      if r.kw then
        r.kwset = {}
        for _, k in ipairs(r.kw) do
          r.kwset[k] = true
        end
      end
    end
  end
  return f
end

-- register reads the rule set load() returns under the pack's parameters
-- P (matcher, commandFields, deny, ask, off, exempt) and registers the
-- BeforeTool hook. The set gives at once, through lookup(token), what the
-- prefilter needs (is the token a key, its trigger: see stdlib.ruleIndex)
-- and, per program, the families with rules for it; a family's rules are built and indexed the first time a
-- command names one of its programs.
local function register(pack, P, load)
  local rs = load()
  local settings, count = settings_of(pack, rs, P)
  if count == 0 then
    return
  end
  local lookup, loaders = rs.lookup, rs.families
  -- the prefilter's first step: a token with a trigger begins at a token
  -- of the line (through a version or .exe suffix too), found by one pass
  -- of a keyword automaton in Go (BenchmarkDefaultSetBeforeTool)
  local scan = require("scan")
  local trigger_set = scan.keywords(rs.triggers(), { token = "[a-z0-9_.:+@-]" })
  rs = nil
  -- TRIGGERED is that step as a test of the line itself (lowercased, quotes
  -- and backslashes dropped, as hits does), which is also the hook's
  -- prefilter (hook{ prefilter }, a Go search that skips the call without
  -- a VM, BenchmarkDefaultSetBeforeTool).
  -- A PowerShell path (C:\tools\terraform.exe) names its program after a
  -- backslash, which that test drops: a word that ends after one passes
  -- too, and hits reads such a line with its backslashes made slashes (an
  -- expression tried only where a backslash is: a POSIX line without one
  -- costs nothing more, BenchmarkDefaultSetBeforeTool).
  local TRIGGERED = scan.any({ scan.any({ trigger_set }, { lower = true, drop = "\\'\"" }), [=[\\[A-Za-z0-9_.-]+(["'\s]|$)]=] })

  -- families[i]: family i, compiled (loaded on first use)
  local families = {}
  local function family(i)
    local f = families[i]
    if f == nil then
      f = compile(loaders[i](), settings)
      families[i] = f
    end
    return f
  end

  -- index: program -> the entries {r, pw, spec} of its enabled rules
  -- (false: none), built on first use from the families programs names
  local index = {}
  local function entries_of(prog)
    local list = index[prog]
    if list ~= nil then
      return list or nil
    end
    local _, _, fams = lookup(prog)
    if fams == nil then
      return nil
    end
    -- one reading of the program's options, merged over the families
    local spec, loaded = nil, {}
    for i in string.gmatch(fams, "%d+") do
      local f = family(tonumber(i))
      loaded[#loaded + 1] = f
      local sp = f.programs[prog]
      if sp then
        spec = spec or { sd = false, v = {} }
        spec.sd = spec.sd or sp.sd
        spec.g = spec.g or sp.g
        for k in pairs(sp.v) do
          spec.v[k] = true
        end
        if sp.m then
          spec.m = spec.m or {}
          for k in pairs(sp.m) do
            spec.m[k] = true
          end
        end
      end
    end
    list = {}
    for _, f in ipairs(loaded) do
      for _, r in ipairs(f.rules) do
        if not r.off then
          for _, pw in ipairs(r.prog) do
            if pw[1] == prog then
              list[#list + 1] = { r = r, pw = pw, spec = spec }
            end
          end
        end
      end
    end
    if #list == 0 then
      index[prog] = false
      return nil
    end
    index[prog] = list
    return list
  end

  -- has_rules says whether a program (or nil) has rules in some family.
  local function has_rules(prog)
    if prog == nil then
      return false
    end
    local _, _, fams = lookup(prog)
    return fams ~= nil
  end

  -- direct[k]: no wrapper is named after key k (npx is both), so that a
  -- command it starts needs no unwrapping (computed on first use)
  local direct = {}
  local function is_direct(k)
    local d = direct[k]
    if d == nil then
      if not lookup(k) then
        return false
      end
      d = unwrap({ k, "x" })[1] == k
      direct[k] = d
    end
    return d
  end

  -- tokens is the set of words of the line being checked, for the rules
  -- with keywords.
  local tokens = NONE

  -- trigger_of returns the trigger of a token of the line (through a
  -- version or .exe suffix), or nil.
  local function trigger_of(t)
    local _, tr = lookup(t)
    if tr == nil then
      local u = unversioned(t)
      if u then
        _, tr = lookup(u)
      end
      if tr == nil and sub(t, -4) == ".exe" then
        _, tr = lookup(sub(t, 1, -5))
      end
    end
    return tr
  end

  -- hits is the prefilter: does a token of the line name a program of an
  -- enabled rule, with one of the words that rule needs besides (a first
  -- word of its subcommand, a keyword)? Quotes and backslashes are
  -- dropped first, so that "terraform" and terr\aform are seen. It sets
  -- tokens.
  local function hits(line)
    if not TRIGGERED:test(line) then
      return false
    end
    local s = lower(line)
    if find(s, "[\\'\"]") then
      s = string.gsub(s, "[\\'\"]", "")
    end
    local list = re.findall(s, "[a-z0-9_.:+@-]+")
    local set = nil -- built at the first trigger: most lines have none
    for i = 1, #list do
      local tr = trigger_of(list[i])
      if tr then
        if set == nil then
          set = {}
          for k = 1, #list do
            set[list[k]] = true
          end
          tokens = set
        end
        if tr == true then
          return true
        end
        for n in string.gmatch(tr, "%S+") do
          if set[n] then
            return true
          end
        end
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
      -- a runner's shell with a command string (docker exec web sh -c
      -- '...'): the line parser does not read into runners' arguments
      if SHELLS[prog_key(w[1])] and depth < MAX_DEPTH then
        for k = 2, #w - 1 do
          if re.find(w[k], "^-[a-z]*c[a-z]*$") then
            best = check_line(w[k + 1], best, depth + 1, c.env)
            break
          end
        end
      end
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
    if PACKAGE_RUNNERS[prog] and w[2] and (has_rules(prog_key(w[2])) or has_rules(unversioned(prog_key(w[2])))) then
      local inner = {}
      for k = 2, #w do
        inner[#inner + 1] = w[k]
      end
      w = inner
      prog = prog_key(w[1])
    end
    -- PROG ... --help prints the manual and changes nothing
    for k = 2, #w do
      if HELP[w[k]] then
        return best
      end
    end
    local list = entries_of(prog)
    if list == nil then
      local u = unversioned(prog)
      list = u and entries_of(u)
    end
    -- PROG ... help: a last word the program's spec names prints its
    -- manual, unless it is the value of an option (--profile help)
    local spec = list and list[1].spec
    if spec and spec.m and #w > 1 and spec.m[lower(w[#w])] and not spec.v[w[#w - 1]] then
      return best
    end
    -- the rules of the command's program (and those of every program):
    -- a fallback only when no other rule matched the command
    local views, state = {}, {}
    local cand, specific = nil, false
    local wset = nil -- the command's words, lowered, when a rule asks
    for pass = 1, 2 do
      if pass == 2 and specific then
        break
      end
      local t22 = { list or NONE, entries_of("*") or NONE }
      for i22 = 1, #t22 do
        local l = t22[i22]
        local t23 = l
        for i23 = 1, #t23 do
          local e = t23[i23]
          local r = e.r
          local ok = (pass == 2) == (r.fb == true) and (cand == nil or r.rank > cand.rank)
          if ok and r.kwset then
            ok = false
            for k in pairs(r.kwset) do
              if tokens[k] then
                ok = true
                break
              end
            end
          end
          if ok and r.first then
            if wset == nil then
              wset = {}
              for k = 2, #w do
                wset[lower(w[k])] = true
              end
            end
            ok = false
            local t24 = r.first
            for i24 = 1, #t24 do
              local wd = t24[i24]
              if wset[wd] then
                ok = true
                break
              end
            end
          end
          if ok then
            local pw = e.pw
            for k = 2, #pw do
              if w[k] == nil or prog_key(w[k]) ~= lower(pw[k]) then
                ok = false
                break
              end
            end
            if ok then
              local v = views[#pw]
              if v == nil then
                v = parse(w, #pw + 1, e.spec)
                views[#pw] = v
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
        local t25 = c.redirects
        for i25 = 1, #t25 do
          local rd = t25[i25]
          if rd.body then
            best = check_line(rd.body, best, depth + 1, c.env)
          elseif rd.op == "<<<" then
            best = check_line(rd.target, best, depth + 1, c.env)
          end
        end
        if c.fed then
          best = check_line(c.fed, best, depth + 1, c.env)
        end
      end
    end
    return best
  end

  -- key_word says whether a word names an indexed program or keyword
  -- (through a path, a version or .exe), or a shell or scheduler that a
  -- script may be fed to.
  local function key_word(t)
    t = lower(t)
    if lookup(t) then
      return true
    end
    if find(t, "/", 1, true) then
      for seg in string.gmatch(t, "[^/]+") do
        if lookup(seg) then
          return true
        end
      end
      t = string.match(t, "[^/]*$")
    end
    if sub(t, -4) == ".exe" then
      t = sub(t, 1, -5)
    end
    local u = unversioned(t)
    return lookup(t) or (u and lookup(u)) or SHELLS[t] or SCHEDULERS[t] or false
  end

  -- relevant says whether a rule could match a command: one of its words
  -- or output redirection targets is a key_word. Others are not unwrapped.
  local function relevant(c)
    local words = c.words
    for k = 1, #words do
      if key_word(words[k]) then
        return true
      end
    end
    local t26 = c.redirects
    for i26 = 1, #t26 do
      local rd = t26[i26]
      if WRITE_OPS[rd.op] and key_word(rd.target) then
        return true
      end
    end
    return false
  end

  -- NO_ENV is the environment of a line that exports nothing.
  local NO_ENV = {}

  -- check_line checks the commands of a line; inherited is the
  -- environment (NAME=value words) a line run by a command of another
  -- line gets from it; dialect: nil for POSIX, "powershell" or "cmd" (a
  -- PowerShell line's programs, normalised by the parser: terraform.exe
  -- is terraform)
  check_line = function(line, best, depth, inherited, dialect)
    local cmds = commands(line, dialect)
    -- printed: what echo and printf print since the last command that
    -- ended a pipeline at the top level; from: the command before, when
    -- it pipes into this one
    local printed, from = nil, nil
    -- env: the variables exported so far (export RAILS_ENV=test && rails
    -- db:drop runs in the test environment)
    local env = nil
    local t27 = cmds
    for i27 = 1, #t27 do
      local c = t27[i27]
      local words = c.words
      env = C.env_step(env, t27, i27)
      if relevant(c) then
        -- a command named by a key needs no unwrapping (the common case)
        local first = words[1] and lower(words[1])
        local w = (first and is_direct(first)) and words or unwrap(words)
        local list = (env or inherited) and C.env_list(env, nil, inherited) or NO_ENV
        if printed or from or #list > 0 then
          c = { words = words, assigns = c.assigns, redirects = c.redirects, depth = c.depth, fed = printed and concat(printed, "\n"), from = from, env = list }
        end
        best = check_runners(c, w, best, depth)
        if best and best.rank == 2 then
          return best
        end
      end
      local pipe = c.op == "|" or c.op == "|&"
      local p = words[1] and lower(words[1]) or ""
      if (p == "echo" or p == "printf") and #words > 1 then
        printed = printed or {}
        printed[#printed + 1] = concat(words, " ", 2)
      end
      from = pipe and concat(words, " ") or nil
      if not pipe and c.depth == 0 then
        printed = nil
      end
    end
    return best
  end

  -- a line on which hits is false proceeds
  C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.matcher, prefilter = TRIGGERED,
    texts = function(input) return command_texts(input.toolInput, P.commandFields) end },
    function(lines, input)
      local best = nil
      for i = 1, #lines do
        local line = lines[i]
        local dialect = PW.dialect(input.tool, line)
        if (hits(line) or dialect and hits((string.gsub(line, "\\", "/")))) and not C.matches_any(line, P.exempt or NONE) then
          local ok, found = true, best
          if not (input.tool and input.tool.shell) then
            ok, found = pcall(check_line, line, best, 0)
          end
          if ok and dialect and not (found and found.rank == 2) then
            ok, found = pcall(check_line, line, found, 0, nil, dialect)
          end
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
  ---Reads the rule set load() returns under the checked parameters P of
  ---the pack (matcher, commandFields, deny, ask, off, exempt) and
  ---registers its BeforeTool hook. An unknown name in deny, ask or off, or
  ---one in two of them, raises "<pack>: parameter ...".
  ---@type fun(pack: string, P: table, load: fun(): table)
  register = register,
}
