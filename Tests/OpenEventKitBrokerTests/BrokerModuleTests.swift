import Testing
@testable import OpenEventKitBroker
