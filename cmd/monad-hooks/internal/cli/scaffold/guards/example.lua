-- An example guard: the agent may not publish packages; a person does that.
-- It runs before every shell command (kind = "shell": Bash, run_shell_command,
-- shell, ... whatever the agent calls its shell tool), with the default
-- stdlib set (deny-destructive, protect-paths, redact-secrets) before it.
-- Test it with: monad-hooks test --config agents.json hook-tests/
local shell = require("shell")
local log = require("log")

-- The commands that publish, as program and subcommand.
local publishing = {
  npm = { publish = true }, pnpm = { publish = true }, yarn = { publish = true },
  cargo = { publish = true }, gem = { push = true }, twine = { upload = true },
}

hook{
  event = "BeforeTool",
  name = "no-publish",
  kind = "shell",
  onError = "deny", -- a guard that breaks blocks the call rather than let it through
  handler = function(input)
    -- shell.commands sees through &&, pipes, $(...), sh -c and sudo.
    for _, cmd in ipairs(shell.commands(input.tool.command or "")) do
      local words = shell.unwrap(cmd.words)
      local subs = publishing[words[1] or ""]
      if subs and subs[words[2] or ""] then
        log.info("denied a publish", { tool = input.toolName, program = words[1] })
        return { decision = "deny", reason = "publishing " .. words[1] .. " packages is for a person, not the agent: ask the user" }
      end
    end
  end,
}
