/**
 * The few Chrome extension APIs the extension calls, typed here rather than through @types/chrome (a large
 * dependency for a dozen signatures). Shapes follow developer.chrome.com/docs/extensions/reference.
 */
declare namespace chrome {
  namespace runtime {
    const id: string;
    function getManifest(): { version: string };
    function getURL(path: string): string;
    function sendMessage(message: unknown): Promise<unknown>;
    const onInstalled: ChromeEvent<() => void>;
    const onStartup: ChromeEvent<() => void>;
    const onMessage: ChromeEvent<(message: unknown, sender: MessageSender, respond: (answer: unknown) => void) => boolean | undefined>;
    interface MessageSender {
      readonly id?: string;
      readonly url?: string;
      readonly origin?: string;
      readonly tab?: { readonly id?: number };
    }
  }
  namespace storage {
    interface StorageArea {
      get(keys?: string | string[] | null): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
    }
    const local: StorageArea;
    const managed: StorageArea;
    const onChanged: ChromeEvent<(changes: Record<string, unknown>, areaName: string) => void>;
  }
  namespace declarativeNetRequest {
    interface Rule {
      id: number;
      priority: number;
      action: { type: string; redirect?: { regexSubstitution?: string; extensionPath?: string } };
      condition: {
        urlFilter?: string;
        regexFilter?: string;
        requestDomains?: string[];
        resourceTypes?: string[];
        requestMethods?: string[];
        tabIds?: number[];
      };
    }
    function getDynamicRules(): Promise<Rule[]>;
    function updateDynamicRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
    function updateSessionRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
  }
  namespace downloads {
    function cancel(id: number): Promise<void>;
    function erase(query: { id: number }): Promise<number[]>;
    const onCreated: ChromeEvent<(item: { id: number; url: string }) => void>;
  }
  namespace alarms {
    function create(name: string, info: { periodInMinutes: number; delayInMinutes?: number }): Promise<void>;
    const onAlarm: ChromeEvent<(alarm: { name: string }) => void>;
  }
  namespace tabs {
    function create(properties: { url: string }): Promise<{ id?: number }>;
    function remove(tabId: number): Promise<void>;
    function update(tabId: number, properties: { url: string }): Promise<{ id?: number }>;
    function query(filter: { active?: boolean; lastFocusedWindow?: boolean }): Promise<{ id?: number }[]>;
    function sendMessage(tabId: number, message: unknown, options?: { frameId?: number }): Promise<unknown>;
  }
  namespace webNavigation {
    const onBeforeNavigate: ChromeEvent<(details: { tabId: number; frameId: number; url: string }) => void>;
    const onErrorOccurred: ChromeEvent<(details: { tabId: number; frameId: number; url: string; error: string; timeStamp: number }) => void>;
  }
  namespace scripting {
    interface RegisteredContentScript {
      id: string;
      matches: string[];
      js: string[];
      runAt?: "document_start" | "document_end" | "document_idle";
      allFrames?: boolean;
    }
    function registerContentScripts(scripts: RegisteredContentScript[]): Promise<void>;
    function unregisterContentScripts(filter?: { ids?: string[] }): Promise<void>;
  }
  interface ChromeEvent<T> {
    addListener(listener: T): void;
  }
}
