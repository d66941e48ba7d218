module github.com/cogen-go/cogen/durable/pgstore

go 1.26.0

require (
	github.com/cogen-go/cogen v0.0.0
	github.com/cogen-go/cogen/client/pg v0.0.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace (
	github.com/cogen-go/cogen => ../..
	github.com/cogen-go/cogen/client/pg => ../../client/pg
)
