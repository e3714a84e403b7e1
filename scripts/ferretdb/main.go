// Command ferretdb-embedded runs FerretDB 1.24 as a MongoDB-protocol store for local
// development and tests: on PostgreSQL when -postgresql-url is given (what scripts/stack.sh
// starts: concurrent writers and filters pushed down to SQL), else on SQLite files in -data
// (a throwaway store a test can start, stop and start again by itself). FerretDB's own
// cmd/ferretdb refuses to start when built with `go install`, so the project embeds its
// library package instead.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dataDir := flag.String("data", "data/ferretdb", "directory for the SQLite files")
	postgresURL := flag.String("postgresql-url", "", "PostgreSQL connection string; empty for SQLite")
	flag.Parse()

	config := ferretdb.Config{Handler: "postgresql", PostgreSQLURL: *postgresURL}
	if *postgresURL == "" {
		if err := os.MkdirAll(*dataDir, 0o755); err != nil {
			log.Fatal(err)
		}
		config = ferretdb.Config{Handler: "sqlite", SQLiteURL: "file:" + *dataDir + "/"}
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	config.Listener = ferretdb.ListenerConfig{TCP: *listen}
	config.Logger = logger
	f, err := ferretdb.New(&config)
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	log.Printf("ferretdb listening on %s (%s, %s)", *listen, f.MongoDBURI(), config.Handler)
	if err := f.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
