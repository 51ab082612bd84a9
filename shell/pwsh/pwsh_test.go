package pwsh_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/monad-hooks/monad-hooks/shell/pwsh"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// render is a command as one string: ^DEPTH:VIA before a nested one, !
// before an expression, & or . before an invoked one, the words, the
// redirections, then the operator.
func render(c pwsh.Command) string {
	var b strings.Builder
	if c.Depth > 0 {
		b.WriteString("^" + string(rune('0'+c.Depth)) + ":" + c.Via + " ")
	}
	if c.Expr {
		b.WriteString("!")
	}
	if c.Invoke != "" {
		b.WriteString(c.Invoke + " ")
	}
	b.WriteString(strings.Join(c.Words, " | "))
	for _, r := range c.Redirects {
		b.WriteString(" " + r.Fd + r.Op + r.Target)
	}
	if c.Op != "" {
		b.WriteString(" " + c.Op)
	}
	if c.Malformed {
		b.WriteString(" (malformed)")
	}
	return b.String()
}

func renderAll(cmds []pwsh.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = render(c)
	}
	return out
}

func encoded(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, x := range u {
		b[2*i], b[2*i+1] = byte(x), byte(x>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`Remove-Item -Recurse -Force C:\`, []string{`Remove-Item | -Recurse | -Force | C:\`}},
		{`REMOVE-ITEM C:\x; ri -fo y` + "\n" + `rd z`, []string{`Remove-Item | C:\x ;`, `Remove-Item | -fo | y ;`, `Remove-Item | z`}},
		{"rm -r 'a b','c''d' \"e`\"f\" x,y", []string{`Remove-Item | -r | a b | c'd | e"f | x | y`}},
		{`gci C:\ -Recurse | ForEach-Object { Remove-Item $_ -Force }`, []string{`Get-ChildItem | C:\ | -Recurse |`, `^1:{ Remove-Item | $_ | -Force`, `ForEach-Object | { Remove-Item $_ -Force }`}},
		{`gci | % { ri $_ }`, []string{`Get-ChildItem |`, `^1:{ Remove-Item | $_`, `ForEach-Object | { ri $_ }`}},
		{`$x = rm C:\w; $y+=gci`, []string{`Remove-Item | C:\w ;`, `Get-ChildItem`}},
		{`a && b || c & d`, []string{`a &&`, `b ||`, `c &`, `d`}},
		{`& 'C:\Program Files\Git\bin\git.EXE' push -f; . .\x.ps1`, []string{`& git | push | -f ;`, `. x.ps1`}},
		{`'C:\' | Remove-Item -Recurse`, []string{`!C:\ |`, `Remove-Item | -Recurse`}},
		{`echo a > out.txt 2>&1 *>> all.log 3> x`, []string{`Write-Output | a >out.txt 2>&1 *>>all.log 3>x`}},
		{"Remove-Item `\n -Recurse C:\\ # rm -rf /\n<# ri C:\\ #> ls", []string{`Remove-Item | -Recurse | C:\ ;`, `Get-ChildItem`}},
		{`if (Test-Path x) { rd x -Recurse } elseif ($a) { } else { del y }`, []string{`^1:( Test-Path | x`, `^1:{ Remove-Item | x | -Recurse`, `^1:( !$a`, `^1:{ Remove-Item | y`}},
		{`foreach ($f in gci) { ri $f }; function f { rm -r C:\ }`, []string{`^1:( !$f | in | gci`, `^1:{ Remove-Item | $f`, `^1:{ Remove-Item | -r | C:\`}},
		{`Write-Host "$(Remove-Item C:\x)" $(gci) @(ls) @{a=(rm y)}`, []string{`^1:$( Remove-Item | C:\x`, `^1:$( Get-ChildItem`, `^1:@( Get-ChildItem`, `^2:( Remove-Item | y`, `^1:@{ a= | (rm y)`, `Write-Host | $(Remove-Item C:\x) | $(gci) | @(ls) | @{a=(rm y)}`}},
		{`cmd /c "rd /s /q C:\Windows & del /f /s /q C:\* && echo ok ^& x"`, []string{`cmd | /c | rd /s /q C:\Windows & del /f /s /q C:\* && echo ok ^& x`, `^1:cmd Remove-Item | /s | /q | C:\Windows ;`, `^1:cmd Remove-Item | /f | /s | /q | C:\* &&`, `^1:cmd Write-Output | ok | & | x`}},
		{`cmd.exe /C if exist build rd /s /q build`, []string{`cmd | /C | if | exist | build | rd | /s | /q | build`, `^1:cmd Remove-Item | /s | /q | build`}},
		{`powershell.exe -NoProfile -ExecutionPolicy Bypass -Command "Remove-Item -Recurse $HOME"`, []string{`powershell | -NoProfile | -ExecutionPolicy | Bypass | -Command | Remove-Item -Recurse $HOME`, `^1:powershell Remove-Item | -Recurse | $HOME`}},
		{`pwsh -enc ` + encoded("Format-Volume -DriveLetter D"), []string{`pwsh | -enc | ` + encoded("Format-Volume -DriveLetter D"), `^1:powershell Format-Volume | -DriveLetter | D`}},
		{`pwsh -File x.ps1 -c y`, []string{`pwsh | -File | x.ps1 | -c | y`}},
		{`iex 'Remove-Item -Recurse C:\'`, []string{`Invoke-Expression | Remove-Item -Recurse C:\`, `^1:Invoke-Expression Remove-Item | -Recurse | C:\`}},
		{"Remove-Item \u2013Recurse \u201cC:\\\u201d \u2018D:\\\u2019", []string{`Remove-Item | -Recurse | C:\ | D:\`}},
		{`Format-Volume -DriveLetter D; Clear-Disk -Number 1 -RemoveData; update-grub`, []string{`Format-Volume | -DriveLetter | D ;`, `Clear-Disk | -Number | 1 | -RemoveData ;`, `Update-Grub`}},
		{`[IO.Directory]::Delete('C:\x', $true)`, []string{`^1:( !C:\x | $true`, `![IO.Directory]::Delete('C:\x', $true)`}},
		{`return Remove-Item x; throw 'e'`, []string{`Remove-Item | x ;`, `!e`}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			cmds, err := pwsh.Commands(tc.line, pwsh.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, renderAll(cmds))
		})
	}
}

func TestNames(t *testing.T) {
	cmds, err := pwsh.Commands(`C:\Tools\GIT.exe status; kubectl.EXE delete ns x; Get-Childitem; spps -Name x; curl.exe -s u`, pwsh.Options{})
	require.NoError(t, err)
	var got []string
	for _, c := range cmds {
		got = append(got, c.Words[0]+"/"+c.Written)
		if c.Words[0] == "git" || c.Words[0] == "kubectl" || c.Words[0] == "curl" {
			assert.False(t, c.Cmdlet, c.Words[0])
		} else {
			assert.True(t, c.Cmdlet, c.Words[0])
		}
	}
	assert.Equal(t, []string{`git/C:\Tools\GIT.exe`, "kubectl/kubectl.EXE", "Get-ChildItem/Get-Childitem", "Stop-Process/spps", "curl/curl.exe"}, got)
}

func TestMalformed(t *testing.T) {
	for _, line := range []string{`Remove-Item 'C:\`, `Remove-Item "C:\`, `{ Remove-Item C:\`, `Remove-Item x }`, "Remove-Item x`", `<# Remove-Item C:\`, `echo >`} {
		cmds, err := pwsh.Commands(line, pwsh.Options{})
		require.NoError(t, err, line)
		bad := false
		for _, c := range cmds {
			bad = bad || c.Malformed
		}
		assert.True(t, bad, "%q: %q", line, renderAll(cmds))
	}
	cmds, _ := pwsh.Commands(`rm 'C:\`, pwsh.Options{})
	assert.Equal(t, []string{`Remove-Item | C:\ (malformed)`}, renderAll(cmds))
}

func TestCmdCommands(t *testing.T) {
	cmds, err := pwsh.CmdCommands(`@echo off & (rd /s /q "C:\Program Files" || del %USERPROFILE%\x) | more > NUL 2>&1`+"\r\nformat D: /q /y ^\n/x", pwsh.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`Write-Output | off ;`, `^1:( Remove-Item | /s | /q | C:\Program Files ||`, `^1:( Remove-Item | %USERPROFILE%\x`,
		`more >NUL 2>&1 ;`, `format | D: | /q | /y | /x`,
	}, renderAll(cmds))
	for _, c := range cmds {
		assert.Equal(t, "cmd", c.Dialect)
	}
	cmds, err = pwsh.CmdCommands(`for /r %f in (*) do del %f & powershell -c "ri -r C:\"`, pwsh.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{`Remove-Item | %f ;`, `powershell | -c | ri -r C:\`, `^1:powershell Remove-Item | -r | C:\`}, renderAll(cmds))
}

func TestLikely(t *testing.T) {
	for _, l := range []string{`Remove-Item -Recurse -Force C:\`, `rd /s /q C:\Windows`, `del /f /s /q C:\*`, `Format-Volume -DriveLetter D`,
		`ls; gci`, `echo $env:USERPROFILE`, `cd x && C:\Windows\System32\cmd.exe /c dir`, `vssadmin delete shadows /all`, `"Remove-Item" x`, `Get-Content x`} {
		assert.True(t, pwsh.Likely(l), l)
	}
	for _, l := range []string{`rm -rf build`, `update-grub`, `apt-get install x`, `echo Remove-Item`, `git commit -m "del x"`, `ls -la`, `docker-compose up`, `get-date`, `start-stop-daemon -S`} {
		assert.False(t, pwsh.Likely(l), l)
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("$(", 20) + "Remove-Item C:\\" + strings.Repeat(")", 20) + "; ls"
	cmds, err := pwsh.Commands(deep, pwsh.Options{})
	require.ErrorIs(t, err, pwsh.ErrTooDeep)
	assert.Equal(t, "Get-ChildItem", cmds[len(cmds)-1].Words[0], "the parse goes on after the skipped block")

	nested := "Remove-Item C:\\"
	for range 12 {
		nested = "pwsh -c '" + strings.ReplaceAll(nested, "'", "''") + "'"
	}
	_, err = pwsh.Commands(nested, pwsh.Options{})
	require.ErrorIs(t, err, pwsh.ErrTooDeep)
	cmds, err = pwsh.Commands(nested, pwsh.Options{MaxDepth: 20})
	require.NoError(t, err)
	assert.Equal(t, "Remove-Item", cmds[len(cmds)-1].Words[0])

	cmds, err = pwsh.Commands(strings.Repeat("a;", 50), pwsh.Options{MaxCommands: 10})
	require.ErrorIs(t, err, pwsh.ErrTooMany)
	assert.Len(t, cmds, 10)

	_, err = pwsh.Commands(strings.Repeat("a ", 100), pwsh.Options{MaxBytes: 50})
	require.ErrorIs(t, err, pwsh.ErrTooLong)
	_, err = pwsh.Commands(strings.Repeat("cmd /c ", 6)+"x", pwsh.Options{MaxBytes: 90})
	require.ErrorIs(t, err, pwsh.ErrTooLong, "the command strings read again have their own budget")

	n := 0
	_, err = pwsh.Commands(strings.Repeat("a;", 5000), pwsh.Options{Stop: func() bool { n++; return n > 1 }})
	require.True(t, errors.Is(err, pwsh.ErrStopped), "%v", err)
}

// TestLinear proves the work linear by counting steps on inputs built to
// make a parser go back over its text.
func TestLinear(t *testing.T) {
	for name, unit := range map[string]string{
		"blocks":    "{ $( @( (",
		"closers":   ")}",
		"quotes":    `'a'' "b` + "`" + `" `,
		"comments":  "<# #",
		"brackets":  "[[[",
		"redirects": "2>",
		"commas":    ",,a",
		"strings":   "iex 'iex ",
		"cmd":       "cmd /c cmd /c ",
	} {
		for _, cmd := range []bool{false, true} {
			// the command strings read again (iex, cmd /c) are bounded by
			// MaxBytes on their own: the work is linear in the line and
			// that budget
			steps := func(n int) int {
				line := strings.Repeat(unit, n)
				return pwsh.Steps(line, pwsh.Options{MaxCommands: 1 << 30, MaxBytes: 2 * len(line)}, cmd)
			}
			small, big := steps(1000), steps(8000)
			assert.LessOrEqual(t, big, 10*small+100, "%s (cmd %v): %d then %d steps", name, cmd, small, big)
			assert.LessOrEqual(t, big, 3*len(unit)*8000*2+100, "%s (cmd %v)", name, cmd)
		}
	}
}

// TestBlindRoundReasons: the parser's part of what the PowerShell blind
// round missed: a command name ends at its argument's parenthesis
// (IEX(...)), aliases defined on the line are followed, Start-Process of a
// shell runs its arguments, tnc is Test-NetConnection.
func TestBlindRoundReasons(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`IEX(New-Object Net.WebClient).DownloadString('u')`, []string{`^1:( New-Object | Net.WebClient`, `^1:( !u`, `Invoke-Expression | (New-Object Net.WebClient).DownloadString('u')`, `^2:( New-Object | Net.WebClient`, `^2:( !u`, `^1:Invoke-Expression !(New-Object Net.WebClient).DownloadString('u')`}},
		{`Set-Alias zap Remove-Item; zap -Recurse $HOME; New-Alias -Name k -Value Stop-Process; k -Name x`, []string{`Set-Alias | zap | Remove-Item ;`, `Remove-Item | -Recurse | $HOME ;`, `New-Alias | -Name | k | -Value | Stop-Process ;`, `Stop-Process | -Name | x`}},
		{`Start-Process cmd -ArgumentList '/c rd /s /q C:\Windows' -Verb RunAs`, []string{`Start-Process | cmd | -ArgumentList | /c rd /s /q C:\Windows | -Verb | RunAs`, `^1:cmd Remove-Item | /s | /q | C:\Windows`}},
		{`Start-Process powershell -ArgumentList '-NoProfile', '-Command', 'Remove-Item -Recurse $HOME'`, []string{`Start-Process | powershell | -ArgumentList | -NoProfile | -Command | Remove-Item -Recurse $HOME`, `^1:powershell Remove-Item | -Recurse | $HOME`}},
		{`Start-Process -FilePath pwsh.exe -ArgumentList '-c gci'; Start-Process notepad x.txt`, []string{`Start-Process | -FilePath | pwsh.exe | -ArgumentList | -c gci ;`, `^1:powershell Get-ChildItem`, `Start-Process | notepad | x.txt`}},
		{`tnc db.example -Port 5432`, []string{`Test-NetConnection | db.example | -Port | 5432`}},
		{`$x.Method(1); [T]::M(2)`, []string{`^1:( !1`, `!$x.Method(1) ;`, `^1:( !2`, `![T]::M(2)`}},
	} {
		cmds, err := pwsh.Commands(tc.line, pwsh.Options{})
		require.NoError(t, err)
		assert.Equal(t, tc.want, renderAll(cmds), tc.line)
	}
}

// TestVariablesAndHereStrings: a variable assigned one value on the line
// is that value where it is used (whole, or before a path separator);
// here-strings are one word.
func TestVariablesAndHereStrings(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`$p = $env:USERPROFILE; Remove-Item -Path $p -Recurse; ri ${p}\x`, []string{`!$env:USERPROFILE ;`, `Remove-Item | -Path | $env:USERPROFILE | -Recurse ;`, `Remove-Item | $env:USERPROFILE\x`}},
		{`$c = 'Remove-Item C:\Users'; Invoke-Expression $c`, []string{`!Remove-Item C:\Users ;`, `Invoke-Expression | Remove-Item C:\Users`, `^1:Invoke-Expression Remove-Item | C:\Users`}},
		{"$s = @'\nRemove-Item -Recurse $HOME\n'@\niex $s", []string{`!Remove-Item -Recurse $HOME ;`, `Invoke-Expression | Remove-Item -Recurse $HOME`, `^1:Invoke-Expression Remove-Item | -Recurse | $HOME`}},
		{"Write-Output @\"\nline `$x\n\"@", []string{"Write-Output | line `$x"}},
		{`$x = gci; $y = 1 + 2; ri $y`, []string{`Get-ChildItem ;`, `!1 | + | 2 ;`, `Remove-Item | $y`}},
	} {
		cmds, err := pwsh.Commands(tc.line, pwsh.Options{})
		require.NoError(t, err)
		assert.Equal(t, tc.want, renderAll(cmds), tc.line)
	}
}
