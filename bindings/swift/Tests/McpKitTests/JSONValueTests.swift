import McpKit
import XCTest

final class JSONValueTests: XCTestCase {
    func testPlaceholder() {
        XCTAssertEqual(JSONValue.int(1), 1)
    }
}
