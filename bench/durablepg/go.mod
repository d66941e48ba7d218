module github.com/cogen-go/cogen/bench/durablepg

go 1.26.0

replace (
	github.com/cogen-go/cogen => ../..
	github.com/cogen-go/cogen/client/pg => ../../client/pg
	github.com/cogen-go/cogen/durable/pgstore => ../../durable/pgstore
)

tool github.com/cogen-go/cogen/cmd/cogen

require (
	github.com/cogen-go/cogen v0.0.0
	github.com/cogen-go/cogen/durable/pgstore v0.0.0
	github.com/dbos-inc/dbos-transact-golang v1.8.0
	github.com/jackc/pgx/v5 v5.12.0
)

require (
	github.com/cogen-go/cogen/client/pg v0.0.0 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgerrcode v0.0.0-20250907135507-afb5586c32a6 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
