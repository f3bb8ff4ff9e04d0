// Types of node-version.js (plain JavaScript: it runs before anything is compiled, on any Node.js).
export declare const engines: string;
export declare function supportsNode(version: string, range?: string): boolean;
export declare function unsupportedNodeMessage(version: string, range?: string): string;
