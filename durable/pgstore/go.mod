module github.com/cogen-go/cogen/durable/pgstore

go 1.26.0

require (
	github.com/cogen-go/cogen v0.0.0
	github.com/cogen-go/cogen/client/pg v0.0.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

replace (
	github.com/cogen-go/cogen => ../..
	github.com/cogen-go/cogen/client/pg => ../../client/pg
)

tool github.com/cogen-go/cogen/cmd/cogen
