package main

import (
	"os"

	"github.com/monad-hooks/monad-hooks/cmd/monad-hooks/internal/cli"
)

func main() {
	// ctx ends at the first SIGINT or SIGTERM once the command catches
	// them (cli.OSEnv says when).
	ctx, env := cli.OSEnv()
	os.Exit(cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, env))
}
