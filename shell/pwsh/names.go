package pwsh

import "strings"

// aliases are PowerShell's built-in aliases (Windows PowerShell 5.1's,
// which include rm, ls, cat, curl and wget) of the cmdlets guards read,
// lower-case, with the cmdlet each runs.
var aliases = map[string]string{}

// cmdBuiltins are cmd.exe's built-in commands that do what a cmdlet does,
// named by that cmdlet (del /s /q is a recursive Remove-Item; the caller
// reads its / switches).
var cmdBuiltins = map[string]string{
	"del": "Remove-Item", "erase": "Remove-Item", "rd": "Remove-Item", "rmdir": "Remove-Item",
	"type": "Get-Content", "copy": "Copy-Item", "move": "Move-Item", "dir": "Get-ChildItem",
	"ren": "Rename-Item", "rename": "Rename-Item", "cd": "Set-Location", "chdir": "Set-Location",
	"echo": "Write-Output", "cls": "Clear-Host", "md": "New-Item", "mkdir": "New-Item",
}

// cmdlets are canonical names of cmdlets, by their lower-case form.
var cmdlets = map[string]string{}

func init() {
	for _, l := range []string{
		"Remove-Item rm ri del erase rd rmdir", "Get-Content gc cat type", "Set-Content sc", "Add-Content ac",
		"Invoke-WebRequest iwr curl wget", "Invoke-RestMethod irm", "Invoke-Expression iex", "Invoke-Command icm",
		"New-Item ni", "Move-Item mi move mv", "Copy-Item cpi copy cp", "Rename-Item rni ren",
		"Stop-Process kill spps", "Get-ChildItem gci ls dir", "Get-Item gi", "Get-Location gl pwd",
		"Set-Location sl cd chdir", "Write-Output echo write", "Select-String sls", "Select-Object select",
		"Where-Object where ?", "ForEach-Object foreach %", "Measure-Object measure", "Sort-Object sort",
		"Format-Table ft", "Format-List fl", "Format-Wide fw", "Clear-Host cls clear", "Get-History h history ghy",
		"Clear-History clhy", "Get-Command gcm", "Get-Process gps ps", "Start-Process saps start",
		"Set-ItemProperty sp", "Get-ItemProperty gp", "Remove-ItemProperty rp", "Invoke-Item ii",
		"Clear-Content clc", "Clear-Item cli", "Set-Variable sv set", "Get-Variable gv", "Tee-Object tee",
		"Get-WmiObject gwmi", "Remove-WmiObject rwmi", "Invoke-WmiMethod iwmi", "Start-Job sajb",
		"Import-Module ipmo", "Compare-Object diff compare", "Group-Object group", "Get-Member gm",
		"Out-GridView ogv", "Out-Host oh", "Get-Service gsv", "Start-Service sasv", "Stop-Service spsv",
		"Get-PSDrive gdr", "New-PSDrive ndr mount", "Remove-PSDrive rdr", "Remove-Variable rv", "Get-Alias gal",
		"Push-Location pushd", "Pop-Location popd", "Invoke-History ihy r", "Start-Sleep sleep",
		"Resolve-Path rvpa", "Get-Unique gu", "Convert-Path cvpa", "Get-Help help man", "Set-Alias sal",
		"New-Alias nal", "Test-NetConnection tnc", "Get-Date", "Get-Disk", "Get-Volume", "Get-Partition", "Format-Volume", "Clear-Disk",
		"Initialize-Disk", "Remove-Partition", "Set-Partition", "Resize-Partition", "New-Partition",
		"Clear-RecycleBin", "Remove-Computer", "Restart-Computer", "Stop-Computer", "Out-File", "Out-String",
		"Out-Null", "Export-Csv", "Import-Csv", "ConvertTo-Json", "ConvertFrom-Json", "Test-Path", "Split-Path",
		"Join-Path", "Get-FileHash", "Write-Host", "Write-Error", "Write-Warning", "Write-Verbose",
		"Start-BitsTransfer", "New-Object", "Get-Acl", "Set-Acl", "Get-CimInstance", "Remove-CimInstance",
		"Invoke-CimMethod", "Expand-Archive", "Compress-Archive", "Get-ExecutionPolicy", "Set-ExecutionPolicy",
		"Remove-Module", "Get-Module", "Get-Host", "Get-Culture", "Get-Random", "Get-Uptime",
		"Get-ComputerInfo", "Get-NetIPAddress", "Test-Connection", "Test-NetConnection", "Resolve-DnsName",
		"Get-EventLog", "Clear-EventLog", "Get-WinEvent", "Get-LocalUser", "Remove-LocalUser",
		"Get-ScheduledTask", "Unregister-ScheduledTask", "Register-ScheduledTask", "Get-ChildItem",
		"Get-PSReadLineOption", "Set-PSReadLineOption", "Remove-SmbShare", "Disable-ComputerRestore",
		"Remove-Service", "Set-Service", "Add-MpPreference", "Set-MpPreference", "Format-Hex", "Get-Clipboard",
		"Set-Clipboard", "Expand-Archive", "Wait-Process", "Unblock-File", "Get-Credential", "Enter-PSSession",
		"New-PSSession", "Invoke-Pester", "Get-PSProvider", "Get-TimeZone", "Select-Xml", "Update-Help",
		"Install-Module", "Uninstall-Module", "Install-Package", "Uninstall-Package", "Get-Package",
		"Get-Verb", "Get-Event", "Measure-Command", "Trace-Command", "Get-TypeData",
	} {
		f := strings.Fields(l)
		cmdlets[strings.ToLower(f[0])] = f[0]
		for _, a := range f[1:] {
			aliases[a] = f[0]
		}
	}
}

// verbs are PowerShell's approved verbs, lower-case: a Verb-Noun name with
// one of them is a cmdlet (update-grub, by name, is not checked).
var verbs = map[string]bool{}

func init() {
	for _, v := range strings.Fields("add approve assert backup block build checkpoint clear close compare " +
		"complete compress confirm connect convert convertfrom convertto copy debug deny deploy disable " +
		"disconnect dismount edit enable enter exit expand export find format get grant group hide import " +
		"initialize install invoke join limit lock measure merge mount move new open optimize out ping pop " +
		"protect publish push read receive redo register remove rename repair request reset resize resolve " +
		"restart restore resume revoke save search select send set show skip split start step stop submit " +
		"suspend switch sync test trace unblock undo uninstall unlock unprotect unpublish unregister update " +
		"use wait watch where foreach write sort tee") {
		verbs[v] = true
	}
}

// verbNoun reports whether low (lower case) is Verb-Noun with an approved
// verb and a noun of letters and digits.
func verbNoun(low string) bool {
	v, n, ok := strings.Cut(low, "-")
	if !ok || !verbs[v] || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// baseName returns the last segment of a path written with \ or /,
// lower-case, without .exe or .com.
func baseName(w string) string {
	if k := strings.LastIndexAny(w, `\/`); k >= 0 && k < len(w)-1 {
		w = w[k+1:]
	}
	low := strings.ToLower(w)
	for _, ext := range []string{".exe", ".com"} {
		if len(low) > len(ext) && strings.HasSuffix(low, ext) {
			return low[:len(low)-len(ext)]
		}
	}
	return low
}

// normalize returns the normalised name of a command word (see
// Command.Words) and whether it is a cmdlet. In cmd.exe, only the
// built-ins that do a cmdlet's job are named by it.
func normalize(w string, cmd bool) (string, bool) {
	if cmd {
		b := baseName(w)
		if c, ok := cmdBuiltins[b]; ok && !strings.ContainsAny(w, `\/`) {
			return c, true
		}
		return b, false
	}
	low := strings.ToLower(w)
	if c, ok := aliases[low]; ok {
		return c, true
	}
	if strings.ContainsAny(low, `\/`) {
		return baseName(w), false
	}
	if c, ok := cmdlets[low]; ok {
		return c, true
	}
	if verbNoun(low) {
		v, n, _ := strings.Cut(w, "-")
		return strings.ToUpper(v[:1]) + strings.ToLower(v[1:]) + "-" + strings.ToUpper(n[:1]) + n[1:], true
	}
	return baseName(w), false
}

// cmdList reads cmd.exe statements up to closer (0: the end of the text).
func (p *parser) cmdList(closer byte) {
	var cur pending
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		next := byte(0)
		if p.i+1 < len(p.s) {
			next = p.s[p.i+1]
		}
		switch {
		case isBlank(c):
			p.i++
		case c == '\n':
			p.cmdFlush(&cur, ";")
			p.i++
		case c == '&' && next == '&':
			p.cmdFlush(&cur, "&&")
			p.i += 2
		case c == '&':
			p.cmdFlush(&cur, ";")
			p.i++
		case c == '|' && next == '|':
			p.cmdFlush(&cur, "||")
			p.i += 2
		case c == '|':
			p.cmdFlush(&cur, "|")
			p.i++
		case c == '(' && len(cur.words) == 0:
			p.group(1, ')', "(")
		case closer != 0 && c == closer:
			p.cmdFlush(&cur, "")
			p.i++
			return
		case c == '@' && len(cur.words) == 0:
			p.i++
		case c == '>' || c == '<' || ('0' <= c && c <= '9' && next == '>'):
			p.redirect(&cur)
		default:
			w, bad := p.cmdWord(closer)
			cur.bad = cur.bad || bad
			cur.words = append(cur.words, w)
		}
	}
	if closer != 0 {
		cur.bad = true
	}
	p.cmdFlush(&cur, "")
}

// cmdWord reads a cmd.exe word: "..." quoted (quotes removed), ^ escaping
// the next character (a line continuation before a newline).
func (p *parser) cmdWord(closer byte) (string, bool) {
	var b strings.Builder
	bad := false
	for p.i < len(p.s) && !p.st.tick() {
		c := p.s[p.i]
		switch {
		case isBlank(c) || strings.IndexByte("\n&|<>", c) >= 0 || closer != 0 && c == closer:
			return b.String(), bad
		case c == '^' && p.i+1 < len(p.s):
			p.i++
			if p.s[p.i] == '\r' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n' {
				p.i++
			}
			if p.s[p.i] != '\n' {
				b.WriteByte(p.s[p.i])
			}
			p.i++
		case c == '"':
			k := strings.IndexByte(p.s[p.i+1:], '"')
			if k < 0 {
				b.WriteString(p.s[p.i+1:])
				p.i = len(p.s)
				return b.String(), true
			}
			b.WriteString(p.s[p.i+1 : p.i+1+k])
			p.i += k + 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String(), bad
}

// cmdFlush ends the pending cmd.exe command: if and for are read as the
// command they run (if exist x rd /s /q x; for %f in (*) do del %f).
func (p *parser) cmdFlush(cur *pending, op string) {
	defer func() { *cur = pending{} }()
	w := cur.words
	for len(w) > 0 {
		switch strings.ToLower(w[0]) {
		case "for":
			k := 1
			for k < len(w) && strings.ToLower(w[k]) != "do" {
				k++
			}
			w = w[min(k+1, len(w)):]
			continue
		case "if":
			k := 1
			for k < len(w) && (strings.EqualFold(w[k], "/i") || strings.EqualFold(w[k], "not")) {
				k++
			}
			switch {
			case k >= len(w):
			case strings.EqualFold(w[k], "exist") || strings.EqualFold(w[k], "defined") || strings.EqualFold(w[k], "errorlevel"):
				k += 2
			case strings.Contains(w[k], "=="):
				k++
			default:
				k += 3
			}
			w = w[min(k, len(w)):]
			continue
		case "else", "do", "call", "start":
			w = w[1:]
			continue
		}
		break
	}
	if len(w) == 0 && len(cur.redirects) == 0 {
		if cur.bad {
			p.emit(Command{Op: op, Malformed: true})
		}
		return
	}
	c := Command{Words: w, Op: op, Redirects: cur.redirects, Malformed: cur.bad}
	if len(w) > 0 {
		c.Written = w[0]
		w[0], c.Cmdlet = normalize(w[0], true)
	}
	p.emit(c)
	if len(w) > 0 {
		p.descend(c)
	}
}

// likelyNames are the names, lower-case and without .exe, that a POSIX
// shell would not run but PowerShell or cmd.exe would: the aliases and
// built-ins that are not Unix commands, and the Windows programs guards
// read.
var likelyNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields("ri rd del erase gci gc iex iwr irm icm ni mi cpi rni spps saps sls gcm " +
		"sasv spsv gwmi rwmi iwmi rp sp gp ii clc cli rvpa cmd powershell pwsh powershell_ise diskpart reg " +
		"vssadmin wbadmin bcdedit cipher takeown icacls certutil bitsadmin wmic robocopy xcopy attrib format " +
		"schtasks wevtutil fsutil manage-bde sdelete") {
		likelyNames[n] = true
	}
}

// Likely reports whether a line that a host sent as a POSIX command holds,
// where a command's name goes, a name that only PowerShell or cmd.exe runs:
// a cmdlet (known, or a Verb-Noun name with an approved verb written with
// capitals: Remove-Item, not update-grub), an alias or built-in that is not
// a Unix command (ri, rd, del, gci, iex, ...), a Windows program (cmd,
// powershell, diskpart, vssadmin, ...), or a $env: variable anywhere. Its
// cost is one pass over the line.
func Likely(line string) bool {
	if strings.Contains(line, "$env:") || strings.Contains(line, "$Env:") || strings.Contains(line, "$ENV:") {
		return true
	}
	atCommand := true
	for i := 0; i < len(line); {
		c := line[i]
		if strings.IndexByte(";|&(){}\n", c) >= 0 {
			atCommand = true
			i++
			continue
		}
		if isBlank(c) || c == '@' || c == '"' || c == '\'' {
			i++
			continue
		}
		j := i
		for j < len(line) && !isBlank(line[j]) && strings.IndexByte(";|&(){}\n\"'", line[j]) < 0 {
			j++
		}
		if atCommand && likelyName(line[i:j]) {
			return true
		}
		atCommand = false
		i = j
	}
	return false
}

func likelyName(w string) bool {
	b := baseName(w)
	if likelyNames[b] {
		return true
	}
	if _, ok := cmdlets[b]; ok && b != "get-date" {
		return true
	}
	v, n, ok := strings.Cut(w, "-")
	return ok && verbNoun(strings.ToLower(w)) && v != "" && n != "" && 'A' <= v[0] && v[0] <= 'Z' && 'A' <= n[0] && n[0] <= 'Z'
}
