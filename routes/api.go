package routes

// The general part of the published API document. swag reads it from this file, the short
// description from api.md beside it and the guide from guide.md (`make generate`); then
// tools/openapigen adds what Swagger 2.0 cannot say: the bearer scheme, both servers, the 401,
// 403 and 429 answers and rate-limit headers of every operation, and each operation's scope (from
// its @x-required-scope) in its description. The security definition comes last: swag reads
// every line after it as part of it.
//
// The guide is a tag without operations (a trait tag, to Redoc), so that the description, which
// Swagger UI shows above its Authorize button, stays a few lines: Redoc shows the guide as the
// first section of its menu, and Swagger UI, which lists tags in this order, after the
// operations if at all.
//
//	@title						Pet Store API
//	@version					1.2.0
//	@description.markdown
//	@BasePath					/v1
//	@accept						json
//	@produce					json
//
//	@tag.name					animals
//	@tag.description			Animals of the catalogue and their categories.
//	@tag.name					store
//	@tag.description			Orders of the store: placing an order reserves its animal.
//	@tag.name					events
//	@tag.description			Events of animals and orders, and the webhook endpoints they are delivered to.
//	@tag.name					guide
//	@tag.description.markdown
//	@tag.x-displayName			Guide
//	@tag.x-traitTag				true
//	@x-tagGroups				[{"name":"Guide","tags":["guide"]},{"name":"Pets","tags":["animals"]},{"name":"Store","tags":["store"]},{"name":"Events","tags":["events"]}]
//
//	@securityDefinitions.apikey	BearerAuth
//	@in							header
//	@name						Authorization
//	@description				An API key sent as a bearer token: `Authorization: Bearer <API_KEY>`.
