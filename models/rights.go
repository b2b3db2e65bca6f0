package models

import "slices"

// Right is something a staff member may do in the admin pages. The rule behind the table: the
// day's work on single pets and orders belongs to every staff member (each change is audited,
// and a deleted pet can be restored); what changes many things at once or who may reach the
// store (a category's name, which every pet in it carries to API clients; clients, API keys,
// webhook endpoints, staff accounts) and the record of everyone's changes are the admins'.
type Right string

const (
	// RightPets: add and edit pets, set their status, delete and restore them, alone or in bulk.
	RightPets Right = "pets"
	// RightOrders: place orders for pets, approve, deliver and cancel them.
	RightOrders Right = "orders"
	// RightAddCategory: see the categories and add one (a new kind of pet need not wait).
	RightAddCategory Right = "add-category"
	// RightRenameCategory: rename a category, which renames it in every pet of it.
	RightRenameCategory Right = "rename-category"
	// RightClients: API clients, their keys and their webhook endpoints.
	RightClients Right = "clients"
	// RightKeys: issue, change, revoke and unban API keys.
	RightKeys Right = "keys"
	// RightStaff: add staff, reset their passwords, disable and enable them.
	RightStaff Right = "staff"
	// RightAudit: read the audit log of every change, by anyone.
	RightAudit Right = "audit"
)

// RoleRights is a right and the roles that have it.
type RoleRights struct {
	Right Right
	Roles []Role
}

// Rights are the roles' rights, in the order docs/admin-guide.md's table lists them.
var Rights = []RoleRights{
	{RightPets, []Role{RoleStaff, RoleAdmin}},
	{RightOrders, []Role{RoleStaff, RoleAdmin}},
	{RightAddCategory, []Role{RoleStaff, RoleAdmin}},
	{RightRenameCategory, []Role{RoleAdmin}},
	{RightClients, []Role{RoleAdmin}},
	{RightKeys, []Role{RoleAdmin}},
	{RightStaff, []Role{RoleAdmin}},
	{RightAudit, []Role{RoleAdmin}},
}

// May reports whether role has right.
func (role Role) May(right Right) bool {
	i := slices.IndexFunc(Rights, func(r RoleRights) bool { return r.Right == right })
	return i >= 0 && slices.Contains(Rights[i].Roles, role)
}
