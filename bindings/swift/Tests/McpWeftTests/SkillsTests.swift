import Foundation
import McpWeft
import XCTest

/// The skills client: a Swift client lists a server's skills, loads one and reads its files,
/// each checked by the core against the skill's entry before it is returned. Servers declare
/// the extension to 2026-07-28 clients.
final class SkillsTests: XCTestCase {
    static let next: JSONObject = ["protocolVersion": "2026-07-28"]

    static let skillMD = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nRead references/FORMS.md first.\n"
    static let forms = "Forms have fields.\n"

    func skillServer() throws -> Server {
        let server = try Server(name: "skills", version: "1.0.0")
        try server.addSkill(Self.skillMD, files: ["references/FORMS.md": Self.forms])
        return server
    }

    func testAClientListsLoadsAndReadsASkill() async throws {
        let client = try await Client.inMemory(server: skillServer(), options: Self.next)
        let skills = try await client.listSkills()
        XCTAssertEqual(skills.count, 1)
        let entry = try XCTUnwrap(skills.first)
        XCTAssertEqual(entry["uri"], "skill://pdf-processing/SKILL.md")
        XCTAssertEqual(entry["frontmatter"]?["name"], "pdf-processing")
        let skill = try await client.loadSkill(entry)
        XCTAssertEqual(skill["frontmatter"], ["name": "pdf-processing", "description": "Extract PDF text"])
        XCTAssertEqual(
            skill["body"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), "Read references/FORMS.md first.")
        XCTAssertEqual(skill["entry"]?["uri"], entry["uri"])
        let file = try await client.readSkillFile(entry, uri: "skill://pdf-processing/references/FORMS.md")
        XCTAssertEqual(file, Data(Self.forms.utf8))
        await client.close()
    }

    func testFilesThatDoNotMatchTheEntryAreRefused() async throws {
        let client = try await Client.inMemory(server: skillServer(), options: Self.next)
        let skills = try await client.listSkills()
        let entry = try XCTUnwrap(skills.first)
        // The same entry with every file's digest altered.
        let resources = (entry["resources"]?.arrayValue ?? []).map { file -> JSONValue in
            guard var members = file.objectValue else { return file }
            members["digest"] = .string("sha256:" + String(repeating: "0", count: 64))
            return .object(members)
        }
        guard var members = entry.objectValue else { return XCTFail("\(entry)") }
        members["resources"] = .array(resources)
        let tampered = JSONValue.object(members)
        for load in [
            { _ = try await client.loadSkill(tampered) },
            { _ = try await client.readSkillFile(tampered, uri: "skill://pdf-processing/references/FORMS.md") },
        ] as [() async throws -> Void] {
            do {
                try await load()
                XCTFail("a file that does not match its digest was returned")
            } catch let error as MCPError {
                XCTAssertEqual(error.kind, .protocol)
                XCTAssertTrue(error.message.contains("digest"), error.message)
            }
        }
        do {
            _ = try await client.readSkillFile(entry, uri: "skill://pdf-processing/missing.md")
            XCTFail("a file the entry does not list was read")
        } catch let error as MCPError {
            XCTAssertEqual(error.kind, .protocol)
        }
        await client.close()
    }

    func testWithoutTheExtensionListingIsAMissingCapability() async throws {
        let withoutSkills = try await Client.inMemory(server: Server(name: "plain", version: "1"), options: Self.next)
        let olderClient = try await Client.inMemory(server: skillServer())
        for client in [withoutSkills, olderClient] {
            do {
                _ = try await client.listSkills()
                XCTFail("listed the skills of a server that did not declare the extension")
            } catch let error as MCPError {
                XCTAssertEqual(error.kind, .capabilityMissing)
            }
            await client.close()
        }
    }
}
