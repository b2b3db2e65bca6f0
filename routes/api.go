package routes

// The general part of the published API document. swag reads it from this file and the
// description from api.md beside it (`make generate`); tools/openapigen then adds what Swagger
// 2.0 cannot say: the bearer scheme, both servers, the 401, 403 and 429 answers and rate-limit
// headers of every operation, and each operation's scope (from its @x-required-scope) in its
// description. The security definition comes last: swag reads every line after
// it as part of it.
//
//	@title						Pet Store API
//	@version					1.1.0
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
//	@x-tagGroups				[{"name":"Pets","tags":["animals"]},{"name":"Store","tags":["store"]},{"name":"Events","tags":["events"]}]
//
//	@securityDefinitions.apikey	BearerAuth
//	@in							header
//	@name						Authorization
//	@description				An API key sent as a bearer token: `Authorization: Bearer <API_KEY>`.
