export declare const CHROMIUM_HINT: string;
export declare function findChromium(): string | undefined;
export declare function chromiumPath(): string;
