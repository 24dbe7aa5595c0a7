import Testing
import TrellisRuntime

/// Which addresses a webhook may not reach by default: every internal range, in every form an
/// address literal takes, and nothing public.
@Suite struct InternalAddressTests {
    @Test(arguments: [
        "127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "[::1]",
    ])
    func anInternalAddressIsRefused(_ literal: String) {
        #expect(InternalAddress.reason(literal: literal) != nil)
    }

    @Test(arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "192.169.0.1", "2606:2800:220:1::1", "::ffff:8.8.8.8", "hooks.example.com"])
    func aPublicAddressOrANameIsNotJudgedHere(_ literal: String) {
        #expect(InternalAddress.reason(literal: literal) == nil)
    }
}
