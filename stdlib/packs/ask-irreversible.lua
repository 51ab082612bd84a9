--- pack: ask-irreversible
--- summary: Ask before shell commands that destroy what no undo brings back: cloud resources, clusters, data stores, secrets, backups, releases, uncommitted work.
--- events: BeforeTool
--- kinds: shell
--- rules: embedded
---
--- Checks the command of every call of a shell tool (every tool of kind
--- `shell` in the engine's tool table) against the stdlib's rule files
--- (`stdlib/rules/*.toml`): families of rules that each name a
--- program, a subcommand path, options and arguments, or an HTTP method
--- and URL, for the tools a platform engineer's agent runs every day
--- (`terraform destroy`, `gh repo delete`, `vault kv destroy`, `kubectl
--- delete namespace`, `aws s3 rb --force`, `curl -X DELETE .../index`,
--- `git stash drop`, `apt purge nginx`, ...). A matching call stops for the host's approval
--- prompt (`ask`), with a reason that names the rule and the safer way:
---
---     ask-irreversible [iac:terraform-destroy]: destroys every resource the state manages; instead: review terraform plan -destroy, then destroy single resources with -target
---
--- Every family runs by default with its rules' own decision (almost all
--- `ask`; the `packages` rules that remove the system's own packages,
--- every package a pattern or a listing names, or essential packages by
--- force deny: `apt purge openssh-server`, `apt remove '*'`, `brew
--- uninstall $(brew list)`). The parameters `deny`, `ask` and `off` name families, groups
--- (`cloud`, `data`, `secrets`, ...), single rules (`iac:terraform-destroy`)
--- or `all`; the most specific name wins, so `{"deny": ["cloud"], "ask":
--- ["dns"]}` denies every cloud family but DNS. `monad-hooks stdlib
--- ask-irreversible` lists the families with their rule counts.
---
--- It sees through `sudo`, `env`, `timeout`, `xargs` and the other
--- wrappers of `monad.commands`, through runners (`bundle exec`, `poetry
--- run`, `npx`, `aws-vault exec`, `doppler run --`, `op run --`, `docker
--- exec`, `kubectl exec`, `heroku run`), `sh -c`, `eval`, `ssh host '...'`,
--- pipelines and here-documents into a shell, absolute program paths and
--- versioned names (`python3.12`), and PowerShell lines (a tool whose
--- commands are PowerShell, an argv of `pwsh -c`, or a line that names
--- what only PowerShell runs: `& 'C:\Program Files\Terraform\terraform.exe'
--- destroy`, inside blocks and `cmd /c`). It leaves alone the same tools used to
--- read (`list`, `get`, `describe`, `status`, `plan`, `--dry-run`, `GET`),
--- a manual (`--help`, `-help`), and text that only mentions a command.
--- A rule that reads a command's environment (a local or test database:
--- `RAILS_ENV=test`, a `localhost` URL; a variable that skips git hooks)
--- reads its own assignments and what the line exported before it
--- (`export RAILS_ENV=test && rails db:drop`, `declare -x`, `set -a`),
--- as the shell does: not what a subshell, a pipeline or a function body
--- exported, nor what `unset` or `export -n` took back, nor what `env
--- -i`, `env -u NAME` or `sudo` (without `-E`) keep from the program.

local PACK = "ask-irreversible"

local SPEC = {
  -- Deprecated (declare the tool with kind shell instead): RE2 matched against the names of tools the tool table does not know, whose input is a shell command.
  matcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the command of the tools matcher names; every string (or list of strings) among them is checked, and an input that is itself a string.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Families, groups or rule ids (or all) whose matching calls are denied.
  deny = { "[]rule", {} },
  -- Families, groups or rule ids (or all) whose matching calls ask: to bring back one that a wider name turned off or to deny.
  ask = { "[]rule", {} },
  -- Families, groups or rule ids (or all) that are turned off.
  off = { "[]rule", {} },
  -- RE2 expressions: a command line that matches one is never asked about or denied by this pack.
  exempt = { "[]regex", {} },
}

local P = require("monad.params").check(PACK, SPEC, params)

require("monad.rules").register(PACK, P, require("monad.rules.stdlib").load)
