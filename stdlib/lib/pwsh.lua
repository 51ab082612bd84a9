--- monad.pwsh: what the stdlib packs know about PowerShell and cmd.exe
--- command lines: their commands (the host shell module reads them:
--- shell.commands(line, "powershell")), the dialect of a tool call, the
--- parameters of a cmdlet (abbreviations included: -Rec, -fo), Windows
--- paths mapped to the packs' notions (C:\Users\me, $env:USERPROFILE and
--- %USERPROFILE% are ~; backslashes are slashes; drive roots, the Windows
--- directory, registry hives), and the destructive commands deny-destructive
--- denies.
---
---     local PW = require("monad.pwsh")
---     local dialect = PW.dialect(input.tool, line)  -- "powershell", "cmd" or nil
---     if dialect then
---       for _, c in ipairs(PW.commands(line, dialect)) do ... end
---     end

local re = require("re")
local shell = require("shell")
local scan = require("scan")
local PATHS = require("monad.paths")

-- dialect says how to read a command line of a tool call: the dialect
-- the engine's view gives (a PowerShell tool, an argv of powershell or
-- cmd), else "powershell" when a line sent as POSIX names a command only
-- PowerShell or cmd.exe runs (a host on Windows that runs its generic
-- shell tool through PowerShell), else nil (POSIX only).
local function dialect(tool, line)
  local d = type(tool) == "table" and tool.shell or nil
  if d == "powershell" or d == "cmd" then
    return d
  end
  if shell.likely(line) then
    return "powershell"
  end
  return nil
end

-- param finds the parameter name (lower case, full) among the words of a
-- command, written whole or abbreviated to at least min letters (1 when
-- nil), as -Name, -Name:value or -Name value (when takes): it returns
-- true (or the value) and the index of the word, or nil.
local function param(c, name, min, takes)
  local w = c.words
  for i = 2, #w do
    local a = w[i]
    if string.sub(a, 1, 1) == "-" then
      local n, v = string.match(a, "^%-([%a%d_]+):(.*)$")
      n = string.lower(n or string.sub(a, 2))
      if string.len(n) >= (min or 1) and string.sub(name, 1, string.len(n)) == n then
        if v ~= nil then
          if string.lower(v) == "$false" then
            return nil
          end
          return v, i
        end
        if takes then
          return w[i + 1] or "", i
        end
        return true, i
      end
    end
  end
  return nil
end

-- COMMON_TAKES are the common parameters that take a value, and their
-- aliases.
local COMMON_TAKES = {}
for n in string.gmatch("erroraction ea warningaction wa informationaction infa errorvariable ev warningvariable wv "
  .. "informationvariable iv outvariable ov outbuffer ob pipelinevariable pv progressaction proga", "%S+") do
  COMMON_TAKES[n] = true
end

-- args returns the operands of a command: the words that are not
-- parameters, nor the values of the parameters in takes (lower-case full
-- names; an abbreviation of one counts) or of the common parameters; for
-- a cmd.exe built-in (del, rd, ...), not its /X switches either. The
-- values of the parameters named in paths (-Path, -LiteralPath) are
-- operands too.
local function args(c, takes, paths)
  local out, w = {}, c.words
  local builtin = c.dialect == "cmd" or re.match(string.lower(c.written or ""), [[^(del|erase|rd|rmdir|copy|move|type|dir)$]])
  local i = 2
  while i <= #w do
    local a = w[i]
    local first = string.sub(a, 1, 1)
    if first == "-" and string.len(a) > 1 then
      local n, v = string.match(a, "^%-([%a%d_]+):(.*)$")
      n = string.lower(n or string.sub(a, 2))
      local is_path, takes_value = false, COMMON_TAKES[n] or false
      for full in pairs(paths or {}) do
        if string.sub(full, 1, string.len(n)) == n then
          is_path = true
        end
      end
      for full, yes in pairs(takes or {}) do
        if yes and string.sub(full, 1, string.len(n)) == n then
          takes_value = true
        end
      end
      if is_path then
        if v ~= nil then
          out[#out + 1] = v
        elseif w[i + 1] then
          out[#out + 1] = w[i + 1]
          i = i + 1
        end
      elseif takes_value and v == nil then
        i = i + 1
      end
    elseif builtin and re.match(a, "^/[A-Za-z](:.*)?$") then
      -- a switch of cmd.exe's del or rd: /s /q /f /a:h
    else
      out[#out + 1] = a
    end
    i = i + 1
  end
  return out
end

-- cmd_switch says whether a cmd.exe built-in (del, rd) has the switch /X.
local function cmd_switch(c, letter)
  for i = 2, #c.words do
    local a = string.lower(c.words[i])
    if a == "/" .. letter or string.sub(a, 1, 3) == "/" .. letter .. ":" then
      return true
    end
  end
  return false
end

-- VARS are the environment variables of Windows paths, by lower-case
-- name, mapped to the packs' notions: the home directory is ~ (HOMEDRIVE
-- is nothing so that $env:HOMEDRIVE$env:HOMEPATH is ~ too), the system
-- drive is c:.
local VARS = {
  userprofile = "~", homepath = "~", homedrive = "", home = "~", onedrive = "~/onedrive",
  systemdrive = "c:", windir = "c:/windows", systemroot = "c:/windows",
  programfiles = "c:/program files", ["programfiles(x86)"] = "c:/program files (x86)", programw6432 = "c:/program files",
  commonprogramfiles = "c:/program files/common files", programdata = "c:/programdata", allusersprofile = "c:/programdata",
  appdata = "~/appdata/roaming", localappdata = "~/appdata/local", temp = "~/appdata/local/temp", tmp = "~/appdata/local/temp",
  public = "c:/users/public",
}

local function var(name)
  return VARS[string.lower(name)]
end

-- winpath maps a path written for PowerShell or cmd.exe to the packs'
-- notation: lower case, slashes, environment variables ($env:NAME,
-- ${env:NAME}, %NAME%, $HOME, $PWD) of VARS put in, provider prefixes
-- (FileSystem::, \\?\) dropped, repeated slashes and a trailing slash
-- removed. A variable it does not know stays as written.
local function winpath(p)
  if type(p) ~= "string" then
    return ""
  end
  local s = string.gsub(p, "\\", "/")
  s = string.gsub(s, "%${[Ee][Nn][Vv]:([%w_%(%)]+)}", function(n) return var(n) end)
  s = string.gsub(s, "%$[Ee][Nn][Vv]:([%w_]+)", function(n) return var(n) end)
  s = string.gsub(s, "%%([%w_%(%)]+)%%", function(n) return var(n) end)
  s = string.lower(s)
  s = re.gsub(s, [[^\$home\b]], "~")
  s = re.gsub(s, [[^\$pwd\b]], ".")
  s = re.gsub(s, [[^\$profile(\.[a-z]+)?$]], "~/documents/powershell/microsoft.powershell_profile.ps1")
  s = re.gsub(s, [[^\(get-psreadlineoption\)\.historysavepath$]], "~/appdata/roaming/microsoft/windows/powershell/psreadline/consolehost_history.txt")
  s = re.gsub(s, [[^(microsoft\.powershell\.core/)?registry::]], "")
  s = re.gsub(s, [[^hkey_local_machine\b]], "hklm")
  s = re.gsub(s, [[^hkey_current_user\b]], "hkcu")
  s = re.gsub(s, [[^hkey_classes_root\b]], "hkcr")
  s = re.gsub(s, [[^hkey_users\b]], "hku")
  s = re.gsub(s, [[^(microsoft\.powershell\.core/)?filesystem::]], "")
  s = re.gsub(s, [[^//[?.]/]], "")
  s = re.gsub(s, [[(.)/+]], "$1/")
  s = re.gsub(s, [[/\./]], "/")
  while string.len(s) > 1 and string.sub(s, -1) == "/" and not re.match(s, "^[a-z]:/$") do
    s = string.sub(s, 1, -2)
  end
  return s
end

-- HOME_DIRS are the folders of a home directory whose deletion loses a
-- user's files or credentials.
local HOME_DIRS = [[^~/(documents|desktop|downloads|pictures|music|videos|onedrive|appdata|appdata/(roaming|local|locallow)|\.ssh|\.aws|\.gnupg|\.config|\.kube|source|source/repos)$]]

-- critical says what a path (winpath's notation) is when deleting it
-- (or everything in it) would lose a system, a home or a repository, or
-- nil: a drive root, the home directory and its main folders, C:\Users
-- and the homes in it, the Windows directory (not its Temp), System32,
-- Program Files, ProgramData, a registry hive or its top keys, a .git
-- directory, the working directory itself (. and *) or its parent.
local function critical(s)
  local t = s
  -- what a wildcard lists is what the folder holds
  t = re.gsub(t, [[(^|/)\*(\.\*)?$]], "$1")
  if t ~= s then
    if t == "" then
      return "the working directory (" .. s .. ")"
    end
    t = re.gsub(t, "(.)/$", "$1")
  end
  if t == "/" or t == "" then
    return "the root of the current drive"
  end
  if re.match(t, "^[a-z]:/?$") then
    return "the root of drive " .. string.upper(string.sub(t, 1, 2))
  end
  if t == "~" or t == "~/" then
    return "the home directory"
  end
  if re.match(t, HOME_DIRS) then
    return "a folder of the home directory (" .. t .. ")"
  end
  if re.match(t, [[^[a-z]:/users(/[^/]+)?$]]) then
    return "a home directory (" .. t .. ")"
  end
  if re.match(t, [[^[a-z]:/(windows|winnt)(/|$)]]) and not re.match(t, [[^[a-z]:/windows/(temp|softwaredistribution/download|prefetch)(/|$)]]) then
    return "the Windows directory (" .. t .. ")"
  end
  if re.find(t, [[(^|/)system32(/|$)]]) then
    return "the Windows system directory (" .. t .. ")"
  end
  if re.match(t, [[^[a-z]:/(program files|program files \(x86\)|programdata|recovery|boot|efi|system volume information|\$recycle\.bin)$]]) then
    return "a system folder (" .. t .. ")"
  end
  -- a hive, its top keys, and the keys the system runs on (services,
  -- drivers, Windows' own settings)
  if re.match(t, [[^(hklm|hkcu|hkcr|hku|hkcc|hkey_[a-z_]+):?(/[^/]+)?$]])
    or re.match(t, [[^hklm:?/(system/(currentcontrolset|controlset00[0-9])(/(services|control|enum))?|software/(microsoft|classes|policies|wow6432node)(/windows( nt)?(/currentversion)?)?)$]]) then
    return "a registry hive or a key the system runs on (" .. t .. ")"
  end
  if re.find(t, [[(^|/)\.git$]]) then
    return "a .git directory (" .. t .. ")"
  end
  if t == "." or t == "./" then
    return "the working directory (" .. s .. ")"
  end
  if t == ".." or re.match(t, [[^(\.\./)+\.\.$]]) then
    return "a parent of the working directory (" .. s .. ")"
  end
  return nil
end

-- FETCHERS are the cmdlets and programs that download (a URL's text), and
-- the .NET forms.
local FETCHERS = { ["Invoke-WebRequest"] = true, ["Invoke-RestMethod"] = true, ["Start-BitsTransfer"] = true, curl = true, wget = true, certutil = true, bitsadmin = true }
local FETCH_TEXT = [[(?i)\b(invoke-webrequest|invoke-restmethod|iwr|irm|curl|wget|start-bitstransfer)\b|\.download(string|data|file)(async)?\s*\(|net\.webclient|net\.http\.httpclient|\.getstringasync\s*\(]]

local function fetcher(c)
  if c.expr then
    return re.find(table.concat(c.words, " "), FETCH_TEXT) ~= nil
  end
  return FETCHERS[c.words[1]] == true or re.find(table.concat(c.words, " ", 2), FETCH_TEXT) ~= nil
end

-- pipeline returns the commands before command i in its pipeline (at its
-- depth, the nested commands between them skipped), first to last.
local function pipeline(cmds, i)
  local c, out = cmds[i], {}
  local k = i - 1
  while k >= 1 do
    local p = cmds[k]
    if p.depth < c.depth then
      break
    end
    if p.depth == c.depth then
      if p.op ~= "|" then
        break
      end
      table.insert(out, 1, p)
    end
    k = k - 1
  end
  return out
end

-- holder returns the index of the command whose block holds command i (a
-- block's commands come before the command that holds it), or nil.
local function holder(cmds, i)
  local d = cmds[i].depth
  for k = i + 1, #cmds do
    if cmds[k].depth < d then
      return k
    end
  end
  return nil
end

local LISTERS = { ["Get-ChildItem"] = true, ["Get-Item"] = true, ["Resolve-Path"] = true, ["Convert-Path"] = true }
local NAME_TEST = [[(?i)\b(name|basename|extension|fullname|path)\b|\$_\s+-(i|c)?(like|match|eq)]]
local NARROWERS = { ["Where-Object"] = true, ["Select-Object"] = true, ["Select-String"] = true, ["Sort-Object"] = true }
local LIST_TAKES = { filter = true, include = true, exclude = true, depth = true, attributes = true }
local PATH_PARAMS = { path = true, literalpath = true, lp = true, pspath = true }

-- piped returns the paths whose items reach command i through its
-- pipeline (or, for a command in a ForEach-Object block, that command's):
-- what Get-ChildItem, Get-Item or an expression upstream lists; nil when
-- nothing lists paths, or a filter (-Filter, -Include, Where-Object)
-- narrows them.
local function piped(cmds, i)
  local up = pipeline(cmds, i)
  if #up == 0 then
    local h = holder(cmds, i)
    if h == nil then
      return nil
    end
    up = pipeline(cmds, h)
  end
  if #up == 0 then
    return nil
  end
  -- only a test of the name narrows what is deleted (as find's -name):
  -- Where-Object LastWriteTime -lt ... is every old file of the tree
  for k = 2, #up do
    local u = up[k]
    if NARROWERS[u.words[1]] and (u.words[1] ~= "Where-Object" or re.find(table.concat(u.words, " ", 2), NAME_TEST)) then
      return nil
    end
  end
  local src = up[1]
  if src.expr then
    return src.words
  end
  if not LISTERS[src.words[1]] or param(src, "filter") or param(src, "include") then
    return nil
  end
  local ps = args(src, LIST_TAKES, PATH_PARAMS)
  if #ps == 0 then
    ps = { "." }
  end
  return ps
end

-- REMOVE_TAKES: the parameters of Remove-Item that take a value.
local REMOVE_TAKES = { filter = true, include = true, exclude = true, credential = true, stream = true }

-- PIPE_REF: a word that stands for the item piped in.
local PIPE_REF = [[(?i)^\$(_|psitem)(\.(fullname|pspath|name))?$]]

local D = {} -- cmdlet or program -> checker(c, cmds, i, ctx) -> rule, detail

D["Remove-Item"] = function(c, cmds, i, ctx)
  if param(c, "filter", 1) or param(c, "include", 1) then
    return nil -- only what the filter matches
  end
  local targets = args(c, REMOVE_TAKES, PATH_PARAMS)
  local refs = #targets == 0
  for _, t in ipairs(targets) do
    refs = refs or re.match(t, PIPE_REF)
  end
  if refs then
    for _, t in ipairs(piped(cmds, i) or {}) do
      targets[#targets + 1] = t
    end
  end
  local recursive = param(c, "recurse", 1) or cmd_switch(c, "s")
  for _, t in ipairs(targets) do
    local p = winpath(t)
    local why = critical(p)
    if why and (p == "." or p == "*" or p == "./*" or string.sub(p, 1, 1) == "*") and ctx.moved then
      why = nil -- the working directory is a folder a cd moved to
    end
    if why and string.find(why, "registry", 1, true) then
      return "registry-delete", c.words[1] .. " would delete " .. why
    end
    if why then
      return "delete-critical", (c.written ~= "" and c.written or c.words[1]) .. (recursive and " recursively" or "") .. " would delete " .. why
    end
    if re.find(p, [[psreadline/[^/]*_history\.txt$]]) then
      return "history-wipe", c.words[1] .. " would delete the PowerShell history (PSReadLine)"
    end
  end
  return nil
end

local function disk(name)
  return function(c)
    if param(c, "whatif", 2) then
      return nil
    end
    return "format-device", name .. " would erase a disk, partition or volume"
  end
end
D["Format-Volume"] = disk("Format-Volume")
D["Clear-Disk"] = disk("Clear-Disk")
D["Initialize-Disk"] = disk("Initialize-Disk")
D["Remove-Partition"] = disk("Remove-Partition")
D["Reset-PhysicalDisk"] = disk("Reset-PhysicalDisk")
D["Remove-VirtualDisk"] = disk("Remove-VirtualDisk")
D["Remove-StoragePool"] = disk("Remove-StoragePool")

D.format = function(c)
  for k = 2, #c.words do
    if re.match(c.words[k], "^[A-Za-z]:[\\/]?$") then
      return "format-device", "format would erase the drive " .. string.upper(string.sub(c.words[k], 1, 2))
    end
  end
  return nil
end

local DISKPART = [[(?i)\b(clean|format|delete\s+(partition|volume|disk)|convert\s+(gpt|mbr))\b]]
D.diskpart = function(c, cmds, i)
  for k = 2, #c.words do
    if string.lower(c.words[k]) == "/s" then
      return "format-device", "diskpart would run a script that may erase disks (diskpart /s), unseen"
    end
  end
  for _, u in ipairs(pipeline(cmds, i)) do
    if re.find(table.concat(u.words, " "), DISKPART) then
      return "format-device", "diskpart would erase a disk, partition or volume"
    end
  end
  return nil
end

D.reg = function(c)
  if string.lower(c.words[2] or "") ~= "delete" then
    return nil
  end
  local key = winpath(c.words[3] or "")
  local why = re.match(key, "^(hklm|hkcu|hkcr|hku|hkcc)") and critical(key)
  if why then
    return "registry-delete", "reg delete would delete " .. why
  end
  return nil
end

D.vssadmin = function(c)
  local a = string.lower(table.concat(c.words, " ", 2))
  if re.find(a, [[^(delete\s+shadows|resize\s+shadowstorage)]]) then
    return "destroy-backups", "vssadmin would delete the volume shadow copies (the system's restore points)"
  end
  return nil
end
D.wbadmin = function(c)
  if string.lower(c.words[2] or "") == "delete" then
    return "destroy-backups", "wbadmin delete would delete the system's backups"
  end
  return nil
end
D.wmic = function(c)
  if re.find(string.lower(table.concat(c.words, " ", 2)), [[shadowcopy\s+delete]]) then
    return "destroy-backups", "wmic shadowcopy delete would delete the volume shadow copies"
  end
  return nil
end
local function remove_shadows(c, cmds, i)
  for _, u in ipairs(pipeline(cmds, i)) do
    if re.find(string.lower(table.concat(u.words, " ")), "shadowcopy") then
      return "destroy-backups", c.words[1] .. " would delete the volume shadow copies"
    end
  end
  return nil
end
D["Remove-WmiObject"] = remove_shadows
D["Remove-CimInstance"] = remove_shadows
D.bcdedit = function(c)
  local a = string.lower(table.concat(c.words, " ", 2))
  if re.find(a, [[(^|\s)/delete\b|recoveryenabled\s+no|bootstatuspolicy\s+ignoreallfailures]]) then
    return "destroy-backups", "bcdedit would delete a boot entry or disable the system's recovery"
  end
  return nil
end
D.cipher = function(c)
  for k = 2, #c.words do
    if re.match(string.lower(c.words[k]), "^/w(:|$)") then
      return "wipe-device", "cipher /w would overwrite the free space of a drive"
    end
  end
  return nil
end

-- perm: takeown and icacls on a system path, recursively.
local function perm(c)
  local rec, grant = false, c.words[1] == "takeown"
  for k = 2, #c.words do
    local a = string.lower(c.words[k])
    if a == "/r" or a == "/t" then
      rec = true
    elseif a == "/grant" or a == "/grant:r" or a == "/reset" or a == "/setowner" or a == "/remove" or a == "/deny" or string.sub(a, 1, 13) == "/inheritance:" then
      grant = true
    end
  end
  if not (rec and grant) then
    return nil
  end
  for k = 2, #c.words do
    local a = c.words[k]
    if string.sub(a, 1, 1) ~= "/" or re.match(a, "^/[^a-zA-Z]") then
      local why = critical(winpath(a))
      if why then
        return "perm-critical", c.words[1] .. " would change the owner or access of " .. why .. " recursively"
      end
    end
  end
  return nil
end
D.takeown, D.icacls = perm, perm

local function power(c)
  if param(c, "whatif", 2) then
    return nil
  end
  return "host-power", c.words[1] .. " would shut down or restart the host"
end
D["Stop-Computer"], D["Restart-Computer"] = power, power

D["Stop-Process"] = function(c, cmds, i)
  local name = param(c, "name", 1, true) or param(c, "processname", 1, true)
  if name == "*" then
    return "kill-all", "Stop-Process would stop every process"
  end
  local up = pipeline(cmds, i)
  if #args(c, { name = true, id = true }, {}) == 0 and not name and not param(c, "id", 1, true) and #up == 1 and up[1].words[1] == "Get-Process" and #up[1].words == 1 then
    return "kill-all", "Stop-Process would stop every process Get-Process lists"
  end
  return nil
end

D["Set-PSReadLineOption"] = function(c)
  local v = param(c, "historysavestyle", 8, true)
  if type(v) == "string" and string.lower(v) == "savenothing" then
    return "history-wipe", "Set-PSReadLineOption -HistorySaveStyle SaveNothing would stop the PowerShell history"
  end
  return nil
end

-- iex: Invoke-Expression (and a script block made of text) run what a
-- download upstream, or in their arguments, gives; text decoded from
-- base64 is run unseen too (run-decoded).
local DECODED = [[(?i)frombase64string|\bconvert\]::frombase64|\.getstring\s*\(]]
D["Invoke-Expression"] = function(c, cmds, i)
  for _, u in ipairs(pipeline(cmds, i)) do
    if fetcher(u) then
      return "pipe-to-shell", "Invoke-Expression would run downloaded code unseen"
    end
  end
  if re.find(table.concat(c.words, " ", 2), FETCH_TEXT) then
    return "pipe-to-shell", "Invoke-Expression would run downloaded code unseen"
  end
  if re.find(table.concat(c.words, " ", 2), DECODED) then
    return "run-decoded", "Invoke-Expression would run text decoded from base64 unseen"
  end
  return nil
end
local function shell_sink(c, cmds, i)
  for _, u in ipairs(pipeline(cmds, i)) do
    if fetcher(u) then
      return "pipe-to-shell", "piping a download into " .. c.words[1] .. " runs code unseen"
    end
  end
  return nil
end
D.powershell, D.pwsh, D.cmd = shell_sink, shell_sink, shell_sink

-- the host's history: its event logs
local function clear_logs(c)
  if c.words[1] == "wevtutil" and not re.match(string.lower(c.words[2] or ""), "^(cl|clear-log)$") then
    return nil
  end
  return "history-wipe", c.words[1] .. " would erase the host's event logs"
end
D.wevtutil, D["Clear-EventLog"], D["Remove-EventLog"] = clear_logs, clear_logs, clear_logs

-- every scheduled task (crontab -r)
D.schtasks = function(c)
  local a = " " .. string.lower(table.concat(c.words, " ", 2)) .. " "
  if string.find(a, " /delete ", 1, true) and string.find(a, " /tn * ", 1, true) then
    return "crontab-replace", "schtasks /delete /tn * would delete every scheduled task"
  end
  return nil
end
D["Unregister-ScheduledTask"] = function(c)
  local n = param(c, "taskname", 1, true) or args(c, { taskpath = true }, {})[1]
  if n == "*" or n == nil and not param(c, "inputobject", 2) then
    return "crontab-replace", "Unregister-ScheduledTask would delete every scheduled task"
  end
  return nil
end

-- taskkill of every process a filter selects, or of every image
D.taskkill = function(c)
  local a = " " .. string.lower(table.concat(c.words, " ", 2)) .. " "
  if string.find(a, " /im * ", 1, true) or (string.find(a, " /fi ", 1, true) and not string.find(a, " /pid ", 1, true) and not string.find(a, " /im ", 1, true)
    and re.find(a, [[status eq running|username (eq|ne)|memusage|cputime|pid (gt|ge|ne)]])) then
    return "kill-all", "taskkill would stop every process its filter selects"
  end
  return nil
end

-- the host's protection turned off: its firewall, its antivirus
D["Set-NetFirewallProfile"] = function(c)
  local v = param(c, "enabled", 2, true)
  if type(v) == "string" and re.match(string.lower(v), [[^(\$?false|0|no)$]]) then
    return "disable-protection", "Set-NetFirewallProfile -Enabled False would turn the host's firewall off"
  end
  return nil
end
D.netsh = function(c)
  if re.find(string.lower(table.concat(c.words, " ", 2)), [[advfirewall\s+set\s+\S+\s+state\s+off|firewall\s+set\s+opmode\s+(mode=)?disable]]) then
    return "disable-protection", "netsh would turn the host's firewall off"
  end
  return nil
end
D["Set-MpPreference"] = function(c)
  for i = 2, #c.words do
    local a = string.lower(c.words[i])
    if re.match(a, [[^-disable[a-z]*(:\$?true)?$]]) and not re.match(string.lower(c.words[i + 1] or ""), [[^\$?false$]]) then
      return "disable-protection", "Set-MpPreference would turn Microsoft Defender's protection off"
    end
  end
  return nil
end

-- the PowerShell modules of the clouds (Az, AWS Tools) that remove
-- resources, as the aws and az clients do
local CLOUD_REMOVE = [=[^Remove-(Az|AzureRm|S3|EC2|RDS|DDB|LM|EKS|ECS|ECR|IAM|CFN|KMS|SQS|SNS|EFS|CW|R53|ELB|ELB2|ASA|Gcs|Gce)[A-Z]]=]


-- scriptblock: [scriptblock]::Create(TEXT) made of a download, run.
local SCRIPTBLOCK = [[(?i)\[scriptblock\]::create\s*\(|\.invokecommand\.invokescript\s*\(|\.addscript\s*\(]]

-- destructive returns the rule and detail of the first command of cmds (a
-- PowerShell or cmd.exe line's commands) that D denies, or nil. ctx.moved
-- is set once a command moved to a relative folder (Set-Location build),
-- so that deleting . or * there is that folder's.
local function destructive(cmds, line)
  local ctx = {}
  if re.find(line, SCRIPTBLOCK) and re.find(line, FETCH_TEXT) then
    return "pipe-to-shell", "a script block made of downloaded text would run it unseen"
  end
  -- .NET deletion of a literal path or variable: [IO.Directory]::Delete(P, $true)
  local rest = line
  while true do
    local a, b, target = re.find(rest, [=[(?i)\[(?:system\.)?io\.(?:directory|file)\]::delete\s*\(\s*['"]?([^'",)]+)]=])
    if not a then
      break
    end
    local why = critical(winpath(target))
    if why then
      return "delete-critical", "[IO.Directory]::Delete would delete " .. why
    end
    rest = string.sub(rest, b + 1)
  end
  -- files a command downloads, by path (run-download: running one)
  local fetched = {}
  for i, c in ipairs(cmds) do
    if not c.expr and c.words[1] then
      local name = winpath(c.written ~= "" and c.written or c.words[1])
      if fetched[name] or (c.words[1] == "Start-Process" or c.words[1] == "Invoke-Item") and fetched[winpath(args(c, { argumentlist = true, verb = true }, { filepath = true })[1] or "")] then
        return "run-download", "a file downloaded on the line would be run unseen"
      end
      if re.match(c.words[1], CLOUD_REMOVE) and not param(c, "whatif", 2) then
        return "destroy-cloud", c.words[1] .. " would delete a cloud resource"
      end
      if fetcher(c) then
        for _, n in ipairs({ "outfile", "destination" }) do
          local v = param(c, n, 2, true)
          if type(v) == "string" then
            fetched[winpath(v)] = true
          end
        end
        for k = 2, #c.words - 1 do
          if c.words[k] == "-o" or c.words[k] == "--output" or string.lower(c.words[k]) == "-outfile" then
            fetched[winpath(c.words[k + 1])] = true
          end
        end
        if c.words[1] == "certutil" or c.words[1] == "bitsadmin" then
          fetched[winpath(c.words[#c.words])] = true
        end
      end
      local check = D[c.words[1]]
      if check then
        local rule, detail = check(c, cmds, i, ctx)
        if rule then
          return rule, detail
        end
      end
      if c.words[1] == "Set-Location" or c.words[1] == "Push-Location" then
        local to = winpath(args(c, {}, PATH_PARAMS)[1] or "~")
        ctx.moved = not critical(to) and not re.match(to, [[^([a-z]:|/|~|\$)]])
      end
    end
  end
  return nil
end

-- NAMES are the names (lower case, also with .exe) of the commands D
-- checks and of the Windows shells, for the packs' prefilters.
local NAMES = { "iex", "ri", "rd", "del", "erase", "rmdir", "rm", "spps", "kill", "scriptblock", "format", "invoke-webrequest", "iwr", "irm", "invoke-restmethod" }
-- (cmd alone is left out: it is a folder of most Go modules, ./cmd/x; a
-- line that runs it has cmd.exe, a quote, a backslash or a name of its own)
for n in pairs(D) do
  if n ~= "cmd" then
    NAMES[#NAMES + 1] = string.lower(n)
  end
  if not string.find(n, "-", 1, true) then
    NAMES[#NAMES + 1] = n .. ".exe"
  end
end
NAMES[#NAMES + 1] = "powershell_ise"
for n in string.gmatch("remove-azresourcegroup remove-azvm remove-azsqldatabase remove-azsqlserver remove-azstorageaccount "
  .. "remove-azkeyvault remove-azaksCluster remove-azwebapp remove-s3bucket remove-ec2instance remove-rdsdbinstance "
  .. "remove-rdsdbcluster remove-ddbtable remove-lmfunction remove-ekscluster remove-cfnstack remove-iamuser", "%S+") do
  NAMES[#NAMES + 1] = string.lower(n)
end
local TRIGGER = scan.any({ scan.keywords(NAMES, { token = "[a-z0-9_.+-]" }) }, { lower = true })

-- posix maps a Windows path to the POSIX form the path packs read:
-- winpath's, with a drive made a root folder (C:\Users\me is
-- /c:/users/me), so that it is absolute.
local function posix(p)
  local s = winpath(p)
  if re.match(s, "^[a-z]:(/|$)") then
    return "/" .. s
  end
  return s
end

-- FILE_OPS: what cmdlets do to the files they name. Each entry: the
-- parameters that name the file (beside -Path and -LiteralPath), the
-- parameters that take a value, which operand names it ("first", "all",
-- or nil for none), and the operation (read, write, delete); dest names
-- the operation of a destination (-Destination, the second operand).
local VALUE_TAKES = { value = true, encoding = true, totalcount = true, tail = true, head = true, first = true, last = true,
  delimiter = true, readcount = true, stream = true, filter = true, include = true, exclude = true, credential = true,
  pattern = true, context = true, itemtype = true, type = true, name = true, newname = true, inputobject = true,
  width = true, method = true, uri = true, body = true, headers = true, contenttype = true, useragent = true,
  destination = true, destinationpath = true, outfile = true, infile = true, filepath = true, source = true,
  compressionlevel = true, aclobject = true, depth = true, variable = true, append = false }
local FILE_OPS = {
  ["Get-Content"] = { op = "read", operands = "all" },
  ["Format-Hex"] = { op = "read", operands = "all" },
  ["Import-Csv"] = { op = "read", operands = "first" },
  ["Import-Clixml"] = { op = "read", operands = "first" },
  ["Select-String"] = { op = "read", operands = "pattern" },
  ["Copy-Item"] = { op = "read", operands = "first", dest = "write" },
  ["Move-Item"] = { op = "delete", operands = "first", dest = "write" },
  ["Rename-Item"] = { op = "delete", operands = "first" },
  ["Compress-Archive"] = { op = "read", operands = "first", dest = "write", destparam = "destinationpath" },
  ["Expand-Archive"] = { op = "read", operands = "first", dest = "write", destparam = "destinationpath" },
  ["Set-Content"] = { op = "write", operands = "first" },
  ["Add-Content"] = { op = "write", operands = "first" },
  ["Clear-Content"] = { op = "write", operands = "all" },
  ["Out-File"] = { op = "write", operands = "first", param = "filepath" },
  ["Tee-Object"] = { op = "write", operands = "first", param = "filepath" },
  ["Export-Csv"] = { op = "write", operands = "first" },
  ["Export-Clixml"] = { op = "write", operands = "first" },
  ["New-Item"] = { op = "write", operands = "first" },
  ["Set-Acl"] = { op = "write", operands = "first" },
  ["Remove-Item"] = { op = "delete", operands = "all" },
  ["Invoke-WebRequest"] = { op = "read", param = "infile", dest = "write", destparam = "outfile" },
  ["Invoke-RestMethod"] = { op = "read", param = "infile", dest = "write", destparam = "outfile" },
  ["Start-BitsTransfer"] = { dest = "write", destparam = "destination", destoperand = 2 },
}
-- DOTNET: the .NET file methods called with a literal path.
local DOTNET = [=[(?i)\[(?:system\.)?io\.file\]::(readall\w*|openread|opentext|readlines|writeall\w*|appendall\w*|create|delete|copy|move|replace|opentext|openwrite)\s*\(\s*['"]([^'"]+)['"]]=]

-- file_ops appends to acts the {operation, path} pairs of the commands of
-- cmds (a PowerShell or cmd.exe line), paths in posix form: what the
-- cmdlets of FILE_OPS read, write and delete, redirections (> and >>, but
-- to $null), and .NET file methods of the line; each program's command
-- (git, cat, cp, ...) goes to program(words, redirects) instead.
local function file_ops(cmds, line, acts, program)
  local function add(op, p)
    if type(p) == "string" and p ~= "" and not re.match(p, PIPE_REF) then
      acts[#acts + 1] = { op, posix(p) }
    end
  end
  for _, c in ipairs(cmds) do
    for _, r in ipairs(c.redirects) do
      if (r.op == ">" or r.op == ">>") and string.lower(r.target) ~= "$null" then
        add("write", r.target)
      end
    end
    local f = not c.expr and FILE_OPS[c.words[1]]
    if f then
      local explicit = false
      for _, n in ipairs({ "path", "literalpath", f.param or "path" }) do
        local v = param(c, n, n == "path" and 1 or 2, true)
        if type(v) == "string" then
          explicit = true
          add(f.op, v)
        end
      end
      local ops = args(c, VALUE_TAKES, {})
      if f.operands == "pattern" then
        if not param(c, "pattern", 2) then
          table.remove(ops, 1)
        end
        for k = 1, #ops do
          add(f.op, ops[k])
        end
      elseif f.operands == "all" then
        for k = 1, #ops do
          add(f.op, ops[k])
        end
      elseif f.operands == "first" and not explicit and ops[1] then
        add(f.op, ops[1])
      end
      local template = c.words[1] == "Copy-Item" and ops[1] and PATHS.env_template(string.match(winpath(ops[1]), "([^/]*)$") or "")
      if f.dest and not template then
        local d = param(c, f.destparam or "destination", 2, true)
        if type(d) == "string" then
          add(f.dest, d)
        elseif ops[f.destoperand or (explicit and 1 or 2)] then
          add(f.dest, ops[f.destoperand or (explicit and 1 or 2)])
        end
      end
    elseif not c.expr and c.words[1] and not c.cmdlet then
      program(c.words, c.redirects)
    end
  end
  local rest = line
  while rest ~= "" do
    local a, b, method, p = re.find(rest, DOTNET)
    if not a then
      break
    end
    method = string.lower(method)
    add((string.find(method, "read", 1, true) or method == "opentext") and "read" or (method == "delete" and "delete" or "write"), p)
    rest = string.sub(rest, b + 1)
  end
  return acts
end

-- quote joins words (read by a POSIX shell) into a PowerShell line that
-- gives the same words: each that is not a bare word in single quotes.
local function quote(words)
  local out = {}
  for k, w in ipairs(words) do
    if k > 1 and (w == "" or re.find(w, [=[[^A-Za-z0-9_./:\=+-]]=])) then
      w = "'" .. string.gsub(w, "'", "''") .. "'"
    end
    out[k] = w
  end
  return table.concat(out, " ")
end

return {
  ---@type fun(words: string[]): string
  quote = quote,
  ---@type fun(p: string): string
  posix = posix,
  ---@type fun(cmds: table[], line: string, acts: table[], program: fun(words: string[], redirects: table[])): table[]
  file_ops = file_ops,
  ---shell.commands(line, dialect)
  commands = shell.commands,
  ---@type fun(tool: table?, line: string): string?
  dialect = dialect,
  ---@type fun(c: table, name: string, min: integer?, takes: boolean?): any, integer?
  param = param,
  ---@type fun(c: table, takes: table?, paths: table?): string[]
  args = args,
  ---@type fun(p: string): string
  winpath = winpath,
  ---@type fun(s: string): string?
  critical = critical,
  ---@type fun(cmds: table[], i: integer): table[]
  pipeline = pipeline,
  ---@type fun(cmds: table[], i: integer): string[]?
  piped = piped,
  ---@type fun(c: table): boolean
  fetcher = fetcher,
  ---@type fun(cmds: table[], line: string): string?, string?
  destructive = destructive,
  ---the prefilter of the names destructive checks (a scan.any)
  TRIGGER = TRIGGER,
  ---those names, lower case (a pack's own prefilter may take them in)
  NAMES = NAMES,
  PATH_PARAMS = PATH_PARAMS,
}
