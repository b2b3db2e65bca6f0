package models

import (
	"context"

	"gorm.io/gorm"
	"gorm.io/plugin/dbresolver"
)

// Every read goes to the primary unless two things allow a read replica, which may be a moment
// behind: the store, for a read that tolerates that (the catalogue's lists and look-ups, never a
// read that decides a change), and the caller, for a request that did not just write what it
// reads (the API; not the admin pages, where staff must see their own changes).

// ReplicaResolver names the read replicas on a database handle: app.UseReplicas registers
// them under it with gorm's dbresolver.
const ReplicaResolver = "replicas"

type replicaOK struct{}

// MayReadReplica returns ctx allowing the reads that tolerate replication lag to go to a read
// replica.
func MayReadReplica(ctx context.Context) context.Context {
	return context.WithValue(ctx, replicaOK{}, true)
}

// laggingRead returns db for a read that tolerates replication lag: on a replica when ctx
// allows it and db has replicas, else db itself.
func laggingRead(ctx context.Context, db *gorm.DB) *gorm.DB {
	if ctx.Value(replicaOK{}) == nil {
		return db
	}
	if _, ok := db.Config.Plugins[dbresolverPlugin]; !ok {
		return db
	}
	return db.Clauses(dbresolver.Use(ReplicaResolver))
}

// dbresolverPlugin is dbresolver's name among a handle's plugins.
const dbresolverPlugin = "gorm:db_resolver"
