/// The origins an app view may reach (MCP Apps), which the host turns into the Content Security
/// Policy of the view's frame.
public struct AppCSP: Codable, Sendable, Equatable {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    public var connectDomains: [String]?
    /// Origins for scripts, images, styles, fonts and media.
    public var resourceDomains: [String]?
    /// Origins for nested frames (`frame-src`).
    public var frameDomains: [String]?
    /// Allowed base URIs (`base-uri`).
    public var baseURIDomains: [String]?

    /// Creates a policy; each list left `nil` is not sent.
    public init(
        connectDomains: [String]? = nil, resourceDomains: [String]? = nil, frameDomains: [String]? = nil,
        baseURIDomains: [String]? = nil
    ) {
        self.connectDomains = connectDomains
        self.resourceDomains = resourceDomains
        self.frameDomains = frameDomains
        self.baseURIDomains = baseURIDomains
    }

    enum CodingKeys: String, CodingKey {
        case connectDomains, resourceDomains, frameDomains
        case baseURIDomains = "baseUriDomains"
    }
}

/// The browser features an app view asks for; hosts may grant them.
public struct AppPermissions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The camera.
    public static let camera = AppPermissions(rawValue: 1 << 0)
    /// The microphone.
    public static let microphone = AppPermissions(rawValue: 1 << 1)
    /// The user's location.
    public static let geolocation = AppPermissions(rawValue: 1 << 2)
    /// Writing to the clipboard.
    public static let clipboardWrite = AppPermissions(rawValue: 1 << 3)

    /// Each permission with its name in `_meta.ui.permissions`.
    static let names: [(AppPermissions, String)] = [
        (.camera, "camera"), (.microphone, "microphone"), (.geolocation, "geolocation"),
        (.clipboardWrite, "clipboardWrite"),
    ]

    /// Reads the permissions of a `permissions` object (each present member is one).
    init(_ json: JSONValue?) {
        self = []
        for (permission, name) in Self.names where json?[name] != nil {
            insert(permission)
        }
    }

    /// The `permissions` object: each permission asked for is a member whose value is `{}`.
    var json: JSONValue {
        .object(JSONObject(Self.names.filter { contains($0.0) }.map { (key: $0.1, value: JSONValue.object([:])) }))
    }
}

/// Who may call a tool bound to an app view.
public enum ToolVisibility: String, Sendable {
    /// The model: hosts list the tool to it.
    case model
    /// The view, through the host (on the same server only).
    case app
}

/// An app view (MCP Apps) as a client or a host reads it: its HTML and how to render it.
public struct AppView: Sendable, Equatable {
    /// The view's `ui://` URI.
    public let uri: String
    /// The HTML document.
    public let html: String
    /// The view's `_meta.ui` as it came (`csp`, `permissions`, `domain`, `prefersBorder`).
    public let meta: JSONValue
    /// The origins the view may reach, when it names any.
    public let csp: AppCSP?
    /// The browser features the view asks for.
    public let permissions: AppPermissions
    /// A dedicated origin for the view, in the host's format.
    public let domain: String?
    /// Whether the host should draw a border and background around the view.
    public let prefersBorder: Bool?

    /// Reads the view as the core gives it: `{"uri", "html", "meta"}`.
    init(_ json: JSONValue) {
        uri = json["uri"]?.stringValue ?? ""
        html = json["html"]?.stringValue ?? ""
        meta = json["meta"] ?? [:]
        csp = try? meta["csp"]?.decode(AppCSP.self)
        permissions = AppPermissions(meta["permissions"])
        domain = meta["domain"]?.stringValue
        prefersBorder = meta["prefersBorder"]?.boolValue
    }
}
