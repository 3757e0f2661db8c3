/// The support console's routes: `GET /console` and its script and style sheet, with no token
/// (the page asks for the admin token and sends it with each API call it makes).
extension ServiceRouter {
    /// The console's routes, in the OpenAPI document's order.
    static let consoleRoutes: [Route] = [
        Route(["GET"], "/console", .open, label: "console", .immediate { _, _, _ in ConsolePage.html }),
        Route(["GET"], "/console/console.js", .open, label: "console_script", .immediate { _, _, _ in ConsolePage.script }),
        Route(["GET"], "/console/console.css", .open, label: "console_style", .immediate { _, _, _ in ConsolePage.style }),
    ]
}
