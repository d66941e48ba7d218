// Package db runs stock database drivers from stackful coroutines.
package db
