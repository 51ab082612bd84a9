package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/monad-hooks/monad-hooks/cmd/monad-hooks/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks for a graceful stop; once it has arrived, the
	// signals get their default action again, so a second one ends the
	// process at once.
	context.AfterFunc(ctx, stop)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.OSEnv())
	stop()
	os.Exit(code)
}
