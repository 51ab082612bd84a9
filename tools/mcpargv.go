package tools

import (
	"strconv"
)

// The command-line twins of MCP tools that take an action as fields: a
// call of git-mcp-server's git_push {path, branch, force: true} is seen as
// git -C PATH push --force origin BRANCH, so that the shell guards (and
// ask-irreversible's rule files) check it as they check the command line.
// Each function returns the argv of one call, nil when the input names no
// action to check. The reference git server's tools of the same names
// ({repo_path, ...}) get their twins too: its git_reset only unstages
// (git reset), its git_checkout switches branches.

// gitDirs are the fields that hold a git tool's repository (the reference
// server's repo_path, git-mcp-server's path).
var gitDirs = []string{"repo_path", "path"}

// str returns the string or number of input field k, "" for another type.
func str(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// flag reports whether input field k is true.
func flag(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

// strs returns the strings of input field k: a string or a list.
func strs(m map[string]any, k string) []string {
	return appendStrings(nil, m[k], false)
}

// git returns the start of a git command. The repository (gitDirs) is
// not written as git -C DIR: ask-irreversible's rule git:branch-reset
// reads a -C anywhere as git switch -C.
func git(sub ...string) []string {
	return append([]string{"git"}, sub...)
}

// opt appends o to argv when on.
func opt(argv []string, on bool, o ...string) []string {
	if on {
		return append(argv, o...)
	}
	return argv
}

// nonEmpty appends the words of ws that are not empty.
func nonEmpty(argv []string, ws ...string) []string {
	for _, w := range ws {
		if w != "" {
			argv = append(argv, w)
		}
	}
	return argv
}

func gitPush(m map[string]any) []string {
	argv := git("push")
	argv = opt(argv, flag(m, "force"), "--force")
	argv = opt(argv, flag(m, "delete"), "--delete")
	ref := str(m, "branch")
	if r := str(m, "remoteBranch"); r != "" && (ref == "" || flag(m, "delete")) {
		ref = r
	}
	remote := str(m, "remote")
	if remote == "" && ref != "" {
		remote = "origin"
	}
	return nonEmpty(argv, remote, ref)
}

func gitReset(m map[string]any) []string {
	argv := git("reset")
	switch mode := str(m, "mode"); mode {
	case "soft", "mixed", "hard", "merge", "keep":
		argv = append(argv, "--"+mode)
	}
	return nonEmpty(argv, str(m, "target"))
}

func gitClean(m map[string]any) []string {
	argv := git("clean")
	argv = opt(argv, flag(m, "force"), "-f")
	argv = opt(argv, flag(m, "directories"), "-d")
	argv = opt(argv, flag(m, "ignored"), "-x")
	return opt(argv, flag(m, "dryRun"), "-n")
}

func gitStash(m map[string]any) []string {
	return nonEmpty(git("stash"), str(m, "mode"), str(m, "stashRef"))
}

func gitBranch(m map[string]any) []string {
	argv := git("branch")
	name := str(m, "branchName")
	switch str(m, "mode") {
	case "delete":
		if flag(m, "force") {
			return nonEmpty(append(argv, "-D"), name)
		}
		return nonEmpty(append(argv, "-d"), name)
	case "rename":
		return nonEmpty(append(argv, "-m"), name, str(m, "newBranchName"))
	case "create":
		return nonEmpty(argv, name)
	}
	switch str(m, "branch_type") {
	case "remote":
		argv = append(argv, "-r")
	case "all":
		argv = append(argv, "-a")
	}
	return argv
}

func gitCheckout(m map[string]any) []string {
	argv := git("checkout")
	argv = opt(argv, flag(m, "force"), "-f")
	argv = opt(argv, flag(m, "createBranch"), "-b")
	target := str(m, "target")
	if target == "" {
		target = str(m, "branch_name")
	}
	argv = nonEmpty(argv, target)
	if paths := strs(m, "paths"); len(paths) > 0 {
		argv = append(append(argv, "--"), paths...)
	}
	return argv
}

// ghRepoDelete: GitHub's delete_repository {owner, repo}.
func ghRepoDelete(m map[string]any) []string {
	owner, repo := str(m, "owner"), str(m, "repo")
	if owner == "" || repo == "" {
		return nil
	}
	return []string{"gh", "repo", "delete", owner + "/" + repo}
}

// ghRunTrigger: GitHub's actions_run_trigger {method, run_id, workflow_id}.
func ghRunTrigger(m map[string]any) []string {
	id := str(m, "run_id")
	switch str(m, "method") {
	case "delete_workflow_run_logs":
		return nonEmpty([]string{"gh", "run", "delete"}, id)
	case "cancel_workflow_run":
		return nonEmpty([]string{"gh", "run", "cancel"}, id)
	case "rerun_workflow_run", "rerun_failed_jobs":
		return nonEmpty([]string{"gh", "run", "rerun"}, id)
	case "run_workflow":
		return nonEmpty([]string{"gh", "workflow", "run"}, str(m, "workflow_id"))
	}
	return nil
}
