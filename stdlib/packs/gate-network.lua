--- pack: gate-network
--- summary: Ask before commands and tools reach hosts outside an allowlist.
--- events: BeforeTool
--- kinds: shell, fetch
---
--- Returns `ask` (the host's approval gate decides) when a tool call would
--- contact a host that `allowHosts` does not list:
---
--- - shell commands that name a host: `curl`, `wget`, `http`/`xh`,
---   `aria2c`, `ssh`, `scp`, `sftp`, `rsync` to `host:path` or `rsync://`,
---   `nc`/`ncat`/`socat`/`telnet`/`ftp`, `openssl s_client -connect`,
---   DNS and ping tools (`dig`, `nslookup`, `host`, `ping`, `traceroute`,
---   which can leak data through names), `git clone|fetch|pull|push|ls-remote|remote add|submodule add` with a URL, and
---   package installs from a URL or a custom index (`pip install
---   https://...`, `pip install git+https://...`, `pip --index-url`,
---   `npm install https://...`, `npm --registry`, `cargo install --git`,
---   `gem install --source`, `go get` of a URL is not gated);
--- - URL tools (`urlMatcher`, e.g. `web_fetch`) whose `url` is on another
---   host.
---
--- PowerShell and cmd.exe lines (a tool whose commands are PowerShell,
--- such as Claude Code's `PowerShell`; an argv of `powershell -Command` or
--- `cmd /c`; a line sent as POSIX that names what only PowerShell runs)
--- are parsed too: `Invoke-WebRequest`/`iwr`/`curl`/`wget`,
--- `Invoke-RestMethod`/`irm`, `Start-BitsTransfer` (their URLs and
--- `-Proxy`), `Test-NetConnection`, `Test-Connection`, `Resolve-DnsName`,
--- `Invoke-Command`/`Enter-PSSession`/`New-PSSession -ComputerName`,
--- `Send-MailMessage -SmtpServer`, `certutil -urlcache`, `bitsadmin
--- /transfer`, .NET web clients (`(New-Object
--- Net.WebClient).DownloadFile(URL, ...)`, `HttpClient`: every URL of the
--- line), and `curl.exe`, `git`, `ssh` as in a POSIX line.
---
--- A curl proxy (`-x`, `--proxy`, `--socks5`, ...), `--connect-to` and
--- `--resolve` name a host too: the traffic goes there.
---
--- It looks through the same wrappers and chains as deny-destructive
--- (`sudo`, `env`, `bash -c`, `$(...)`, `;`/`&&`/`|`). By default only
--- loopback names are allowed (`localhost`, `127.0.0.1`, `::1`,
--- `*.localhost`, `host.docker.internal`): the pack is opt-in, and an
--- operator who loads it lists the hosts agents may reach (globs like
--- `*.github.com`). Installs from the default package registries (`npm
--- install left-pad`, `pip install requests`) and git operations on
--- configured remotes (`git push origin main`) name no host and pass.
--- The reason names the host and the command, never the full URL (which
--- may carry a token).

local re = require("re")

local PACK = "gate-network"

local SPEC = {
  -- Deprecated (declare the tool with kind shell instead): RE2 matched against the names of tools the tool table does not know, whose input is a shell command.
  matcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the command of the tools matcher names.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Deprecated (declare the tool with kind fetch instead): RE2 matched against the names of tools the tool table does not know, that fetch a URL.
  urlMatcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the URL of the tools urlMatcher names.
  urlFields = { "[]string", { "url", "uri", "href" } },
  -- Host names or globs (* matches within a label, *.x.com also matches x.com) that may be reached without asking.
  allowHosts = { "[]string", { "localhost", "127.0.0.1", "::1", "0.0.0.0", "*.localhost", "host.docker.internal" } },
  -- The decision for a host outside the allowlist.
  decision = { "ask|deny", "ask" },
}

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared command-line helpers (stdlib/lib/commands.lua): the simple
-- commands of a line and the words of a string (the host shell module), the
-- command strings of a tool input, and a command's words seen through
-- wrappers and flags.
local C = require("monad.commands")
local commands, split = C.commands, C.split
local command_texts, basename, unwrap, parse_flags = C.command_texts, C.basename, C.unwrap, C.parse_flags

local ALLOW = {}
for _, g in ipairs(P.allowHosts) do
  local h = string.lower(g)
  local rx = re.gsub(re.gsub(h, [[([.+?^$(){}\[\]|\\])]], [[\$1]]), [[\*]], "[^.]*")
  ALLOW[#ALLOW + 1] = "^" .. rx .. "$"
  if string.sub(h, 1, 2) == "*." then
    ALLOW[#ALLOW + 1] = "^" .. re.gsub(string.sub(h, 3), [[([.+?^$(){}\[\]|\\])]], [[\$1]]) .. "$"
  end
end

local function allowed(host)
  host = string.lower(host)
  host = re.gsub(host, [[^\[|\]$]], "")
  host = re.gsub(host, [[\.$]], "")
  for _, rx in ipairs(ALLOW) do
    if re.match(host, rx) then
      return true
    end
  end
  return false
end

-- url_host returns the host of a URL (scheme://[user[:pass]@]host[:port]/...).
local function url_host(u)
  if type(u) ~= "string" then
    return nil
  end
  local a, b = re.find(u, [[^[A-Za-z][A-Za-z0-9+.-]*://]])
  if a == nil then
    return nil
  end
  local rest = string.sub(u, b + 1)
  rest = re.gsub(rest, "[/?#].*$", "")
  rest = re.gsub(rest, "^.*@", "")
  if string.sub(rest, 1, 1) == "[" then
    return string.match(rest, "^(%[[^%]]*%])")
  end
  rest = re.gsub(rest, ":[0-9]*$", "")
  if rest == "" then
    return nil
  end
  return rest
end

-- bare_host returns the host of a URL written without a scheme
-- (example.com/path, 10.0.0.1:8080), as curl and wget accept it.
local function bare_host(w)
  if re.match(w, [[^(localhost|\[[0-9a-fA-F:]+\]|[0-9]{1,3}(\.[0-9]{1,3}){3}|([A-Za-z0-9-]+\.)+[A-Za-z][A-Za-z0-9-]+)(:[0-9]+)?([/?#].*)?$]]) then
    local h = re.gsub(w, "[/?#].*$", "")
    if string.sub(h, 1, 1) ~= "[" then
      h = re.gsub(h, ":[0-9]+$", "")
    end
    -- a file name such as notes.txt is not a host
    if re.match(h, [[(?i)\.(txt|md|json|ya?ml|toml|sh|py|js|ts|go|rs|c|h|html|css|csv|log|lock|tar|gz|tgz|zip|png|jpe?g|gif|svg|pdf|xml|ini|cfg|conf|env|out|bin)$]]) then
      return nil
    end
    return h
  end
  return nil
end

-- scp_host returns the host of [user@]host:path.
local function scp_host(w)
  local a, _, h = re.find(w, [[^(?:[^/:@]*@)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):]])
  if a == nil then
    return nil
  end
  return h
end

local VALUE_OPTS_CURL = "oOHdFAeEurTxXwKDcbmyYzCQ"

-- via_host returns the host a client's option sends its traffic to besides
-- the URL's: a proxy (curl -x, --proxy, --preproxy, --socks5...), the
-- host of --connect-to H1:P1:HOST:P2 and the address of --resolve
-- H:P:ADDR; nil for any other option.
local function via_host(opt, v)
  if v == nil then
    return nil
  end
  if opt == "-x" or re.match(opt, "^--(proxy|preproxy|socks4a?|socks5|socks5-hostname)$") then
    return url_host(v) or bare_host(v) or url_host("http://" .. v)
  end
  local h
  if opt == "--connect-to" then
    h = select(3, re.find(v, [=[^[^:]*:[^:]*:(\[[^\]]*\]|[^:]+)]=]))
  elseif opt == "--resolve" then
    h = select(3, re.find(v, [=[^[^:]*:[^:]*:\+?(\[[^\]]*\]|[^,:]+)]=]))
  end
  return h
end

-- code_hosts adds the hosts of the URLs written in a one-line program
-- (python -c, node -e, ...): urlopen("https://...") reaches them.
local INTERPRETERS = { python = true, node = true, nodejs = true, perl = true, ruby = true, php = true, deno = true, bun = true, pwsh = true, powershell = true }

local function code_hosts(w, name, out)
  for k = 2, #w do
    local a = w[k]
    if string.find(a, "://", 1, true) then
      -- every URL of the program (each round moves past one)
      local pos = 1
      while true do
        local s0, e0 = re.find(a, [[[A-Za-z][A-Za-z0-9+.-]*://[^\s'"()<>]+]], pos)
        if s0 == nil then
          break
        end
        local h = url_host(string.sub(a, s0, e0))
        if h then
          out[#out + 1] = { h, name }
        end
        pos = e0 + 1
      end
    end
  end
end

local function hosts_of(w, out)
  local name = basename(w[1])
  if INTERPRETERS[(re.gsub(name, "[0-9.]+$", ""))] then
    code_hosts(w, name, out)
    return
  end
  local function any_url(from)
    for k = from, #w do
      local h = url_host(w[k])
      if h then
        out[#out + 1] = { h, name }
      end
    end
  end
  if name == "curl" or name == "wget" or name == "http" or name == "https" or name == "xh" or name == "xhs" or name == "aria2c" or name == "lwp-request" or name == "httpie" then
    local k = 2
    while k <= #w do
      local a = w[k]
      if string.sub(a, 1, 1) == "-" then
        local opt, v = a, nil
        if string.len(a) == 2 and string.find(VALUE_OPTS_CURL, string.sub(a, 2, 2), 1, true) then
          k = k + 1
          v = w[k]
        elseif string.sub(a, 1, 2) == "-x" and name == "curl" then
          opt, v = "-x", string.sub(a, 3) -- -xhttp://proxy:8080
        elseif re.match(a, "^--[a-z0-9-]+=") then
          opt, v = string.match(a, "^(--[a-z0-9-]+)=(.*)$")
        elseif re.match(a, "^--(output|header|data|data-raw|data-binary|data-urlencode|form|user|user-agent|referer|proxy|preproxy|socks4|socks4a|socks5|socks5-hostname|cookie|cookie-jar|config|cert|key|cacert|max-time|connect-timeout|retry|output-document|post-data|post-file|header|directory-prefix|method|auth|resolve|connect-to|json)$") then
          k = k + 1
          v = w[k]
        end
        local h = name == "curl" and via_host(opt, v) or nil
        if h then
          out[#out + 1] = { h, name }
        end
      else
        local h = url_host(a) or bare_host(a)
        if h then
          out[#out + 1] = { h, name }
        end
      end
      k = k + 1
    end
    return
  end
  if name == "ssh" or name == "mosh" or name == "autossh" then
    local k = 2
    while k <= #w do
      local a = w[k]
      if string.sub(a, 1, 1) == "-" then
        if string.len(a) == 2 and string.find("BbcDEeFIiJLlmOoPpQRSWw", string.sub(a, 2, 2), 1, true) then
          if a == "-J" and w[k + 1] then
            out[#out + 1] = { re.gsub(re.gsub(w[k + 1], "^.*@", ""), ":[0-9]+$", ""), name }
          end
          k = k + 1
        end
      else
        local h = url_host(a) or re.gsub(a, "^.*@", "")
        out[#out + 1] = { h, name }
        return
      end
      k = k + 1
    end
    return
  end
  if name == "scp" or name == "sftp" or name == "rsync" then
    for k = 2, #w do
      local a = w[k]
      if string.sub(a, 1, 1) ~= "-" then
        local h = url_host(a) or scp_host(a)
        if h then
          out[#out + 1] = { h, name }
        elseif name == "sftp" then
          out[#out + 1] = { re.gsub(a, "^.*@", ""), name }
        end
      end
    end
    return
  end
  if name == "nc" or name == "ncat" or name == "netcat" or name == "telnet" or name == "ftp" or name == "ping" or name == "ping6" or name == "traceroute" or name == "tracepath" or name == "mtr" or name == "dig" or name == "nslookup" or name == "host" or name == "whois" then
    local f = parse_flags(w, 2, "pscwqitWOTbkRe")
    for _, a in ipairs(f.args) do
      local h = string.gsub(a, "^@", "")
      if not re.match(h, "^[0-9]+$") and not re.match(h, "^(A|AAAA|MX|TXT|NS|CNAME|SOA|PTR|SRV|ANY|CAA)$") then
        out[#out + 1] = { url_host(h) or h, name }
        if name ~= "dig" and name ~= "host" then
          return
        end
      end
    end
    return
  end
  if name == "socat" then
    for k = 2, #w do
      local h = string.match(w[k], "^[A-Za-z0-9-]*:([%w.-]+):%d+")
      if h and re.match(w[k], "(?i)^(tcp|udp|tcp4|tcp6|udp4|udp6|openssl|ssl)[^:]*:") then
        out[#out + 1] = { h, name }
      end
    end
    return
  end
  if name == "openssl" and w[2] == "s_client" then
    for k = 3, #w do
      if w[k] == "-connect" and w[k + 1] then
        out[#out + 1] = { re.gsub(w[k + 1], ":[0-9]+$", ""), "openssl" }
      end
    end
    return
  end
  if name == "git" then
    local i = 2
    while i <= #w and string.sub(w[i], 1, 1) == "-" do
      if w[i] == "-C" or w[i] == "-c" then
        i = i + 1
      end
      i = i + 1
    end
    local sub = w[i]
    if sub == "clone" or sub == "fetch" or sub == "pull" or sub == "push" or sub == "ls-remote" or (sub == "remote" and (w[i + 1] == "add" or w[i + 1] == "set-url")) or (sub == "submodule" and w[i + 1] == "add") then
      for k = i + 1, #w do
        local h = url_host(w[k]) or (string.match(w[k], "^[%w._-]+@([%w.-]+):") )
        if h then
          out[#out + 1] = { h, "git " .. sub }
        end
      end
    end
    return
  end
  if re.match(name, "^(pip[0-9.]*|uv|pipx|poetry|pdm|npm|pnpm|yarn|bun|npx|cargo|gem|bundle|composer|conda|mamba|helm|brew)$") then
    for k = 2, #w do
      local a = w[k]
      local v = string.match(a, "^%-%-[%w-]+=(.+)$")
      if v then
        a = v
      end
      local spec = re.gsub(a, "^[A-Za-z0-9_.-]+ ?@ ?", "")
      spec = re.gsub(spec, "^git\\+", "")
      local h = url_host(spec)
      if h then
        out[#out + 1] = { h, name }
      end
    end
    return
  end
end

local function shell_hosts(line, out)
  for _, c in ipairs(commands(line)) do
    local w = unwrap(c.words or {})
    if #w > 0 then
      hosts_of(w, out)
    end
  end
end

-- PowerShell and cmd.exe lines (monad.pwsh): the cmdlets that reach a
-- host (by URL, or by name for the remoting and diagnostic ones), the
-- Windows programs that download (certutil -urlcache, bitsadmin
-- /transfer), .NET web clients (New-Object Net.WebClient,
-- [Net.Http.HttpClient]: every URL of the line), and programs (curl.exe,
-- git, ssh) as in a POSIX line.
local PW = require("monad.pwsh")
local PS_NET = {
  ["Invoke-WebRequest"] = "url", ["Invoke-RestMethod"] = "url", ["Start-BitsTransfer"] = "url",
  ["Test-NetConnection"] = "name", ["Test-Connection"] = "name", ["Resolve-DnsName"] = "name",
  ["Invoke-Command"] = "remote", ["Enter-PSSession"] = "remote", ["New-PSSession"] = "remote",
  ["Send-MailMessage"] = "remote",
}
local PS_HOST_PARAMS = { "computername", "cn", "targetname", "smtpserver", "hostname", "proxy", "connectionuri", "uri", "source" }
local PS_DOTNET = [[(?i)net\.webclient|httpclient|net\.webrequest|net\.sockets|system\.net\.|\.download(string|file|data)|\.upload(string|file|data)]]
-- programs that reach every URL they are given (package sources too)
local PS_DOWNLOADERS = { certutil = true, bitsadmin = true, choco = true, winget = true, scoop = true, nuget = true }
-- programs that reach the host they are given (probes)
local PS_PROBES = { tracert = true, pathping = true }

local function pwsh_hosts(line, dialect, out)
  local ok, cmds = pcall(PW.commands, line, dialect)
  if not ok then
    error(cmds, 0)
  end
  for _, c in ipairs(cmds) do
    local w = c.words
    local kind = not c.expr and PS_NET[w[1]]
    if kind then
      for _, n in ipairs(PS_HOST_PARAMS) do
        local v = PW.param(c, n, string.len(n) <= 3 and string.len(n) or 3, true)
        if type(v) == "string" and v ~= "" then
          out[#out + 1] = { url_host(v) or bare_host(v) or v, w[1] }
        end
      end
      for _, a in ipairs(PW.args(c, { method = true, body = true, outfile = true, infile = true, headers = true, contenttype = true,
        useragent = true, credential = true, timeoutsec = true, count = true, type = true, server = true, destination = true,
        scriptblock = true, filepath = true, port = true, session = true, from = true, to = true, subject = true }, {})) do
        local h = url_host(a)
        if h then
          out[#out + 1] = { h, w[1] }
        elseif kind == "name" then
          out[#out + 1] = { bare_host(a) or a, w[1] }
        end
      end
    elseif not c.expr and not c.cmdlet and w[1] then
      if PS_PROBES[w[1]] then
        local a = PW.args(c, {}, {})
        for k = #a, 1, -1 do
          if not re.match(a[k], "^[0-9]+$") then
            out[#out + 1] = { bare_host(a[k]) or a[k], w[1] }
            break
          end
        end
      elseif PS_DOWNLOADERS[w[1]] then
        for k = 2, #w do
          local h = url_host(w[k])
          if h then
            out[#out + 1] = { h, w[1] }
          end
        end
      else
        hosts_of(unwrap(w), out)
      end
    end
  end
  -- a UNC path (\\host\share, //host/share) reaches an SMB host
  for _, c in ipairs(cmds) do
    for k = 2, #c.words do
      local h = string.match(c.words[k], "^[\\/][\\/]([%w][%w.-]*)[\\/]")
      if h and h ~= "localhost" and h ~= "." and h ~= "?" then
        out[#out + 1] = { h, c.words[1] or "a UNC path" }
      end
    end
  end
  if re.find(line, PS_DOTNET) then
    code_hosts({ "", line }, ".NET web client", out)
  end
end

local function verdict(found)
  for _, f in ipairs(found) do
    local h = f[1]
    if type(h) == "string" and h ~= "" and not allowed(h) then
      return { decision = P.decision, reason = PACK .. ": " .. f[2] .. " would reach " .. h .. ", which is not in allowHosts; approve it or add the host" }
    end
  end
  return nil
end

C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.matcher,
  texts = function(input) return command_texts(input.toolInput, P.commandFields) end },
  function(lines, input)
    local found = {}
    for _, line in ipairs(lines) do
      local dialect = PW.dialect(input.tool, line)
      if not (input.tool and input.tool.shell) then
        shell_hosts(line, found)
      end
      if dialect then
        pwsh_hosts(line, dialect, found)
      end
    end
    return verdict(found)
  end)

C.on_kind({ event = "BeforeTool", kind = "fetch", matcher = P.urlMatcher,
  texts = function(input) return command_texts(input.toolInput, P.urlFields) end },
  function(urls, input)
    local found = {}
    for _, u in ipairs(urls) do
      local h = url_host(u) or bare_host(u)
      if h then
        found[#found + 1] = { h, input.toolName or "the tool" }
      end
    end
    return verdict(found)
  end)
