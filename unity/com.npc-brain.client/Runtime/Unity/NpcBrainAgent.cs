#if UNITY_2021_3_OR_NEWER
using System;
using System.Collections.Generic;
using System.Threading;
using UnityEngine;
using UnityEngine.Events;

namespace NpcBrain.Client.Unity
{
    /// <summary>
    /// Connects one NPC to the brain server; add it to the NPC's GameObject. The Godot
    /// addon's NpcBrainAgent, for Unity.
    ///
    /// On Start it sends its <see cref="persona"/> (UpsertAgent). Then every
    /// <see cref="thinkInterval"/> seconds it sends what the NPC perceived since the last
    /// time and asks what to do (Tick, never waiting for the model), and raises
    /// <see cref="ActionChanged"/> when the answer differs. <see cref="Say"/> talks to the
    /// NPC: the reply streams as <see cref="ReplyUpdated"/>, then <see cref="ReplyFinished"/>.
    /// An agent keeps at most one request in flight and skips a think while one runs;
    /// nothing here waits, so Update never stalls. Every agent with the same server, token
    /// and world shares one <see cref="NpcBrainClient"/> (one pool of keep-alive connections).
    /// </summary>
    public class NpcBrainAgent : MonoBehaviour
    {
        /// <summary>A UnityEvent with a text, for wiring in the inspector.</summary>
        [Serializable]
        public class TextEvent : UnityEvent<string>
        {
        }

        /// <summary>The game clock, for every agent without its own
        /// <see cref="gameTimeSource"/>: game time, never the wall clock. Set it as your
        /// clock runs; a clock that stands still freezes minds.</summary>
        public static DateTime GameTime = new DateTime(2023, 2, 13, 8, 0, 0, DateTimeKind.Utc);

        static readonly Dictionary<string, NpcBrainClient> Clients = new Dictionary<string, NpcBrainClient>();

        [Tooltip("The server's HTTP/JSON door (npc-brain serve prints it).")]
        public string serverUrl = "http://127.0.0.1:50052";

        [Tooltip("Sent as \"Authorization: Bearer <token>\" when not empty.")]
        public string token = "";

        [Tooltip("The world the NPC lives in; empty: the server's \"default\".")]
        public string worldId = "";

        [Tooltip("The NPC's id on the server (1-64 of A-Z a-z 0-9 _ . -); empty: the GameObject's name.")]
        public string agentId = "";

        [Tooltip("Who the NPC is; sent to the server on Start.")]
        public NpcPersonaAsset persona;

        [Range(0.1f, 60f)]
        [Tooltip("How often the NPC perceives and decides, in seconds.")]
        public float thinkInterval = 1f;

        [Tooltip("Think every interval; off: the NPC only talks, and thinks on ThinkNow().")]
        public bool thinking = true;

        [Tooltip("The areas and objects the NPC sees now (world:sector:arena:object): places it knows and may go to.")]
        public List<string> visibleAddresses = new List<string>();

        /// <summary>The current action's description, when it changes.</summary>
        public TextEvent onActionChanged = new TextEvent();

        /// <summary>The NPC's whole reply to <see cref="Say"/>.</summary>
        public TextEvent onReplyFinished = new TextEvent();

        /// <summary>Returns the game time for this NPC; unset: <see cref="GameTime"/>.</summary>
        public Func<DateTime> gameTimeSource;

        /// <summary>Called at each think; returns what the NPC perceives now (texts).</summary>
        public Func<IEnumerable<string>> observationSource;

        /// <summary>What the game can make the NPC do when asked (sell, open a door), sent
        /// with the persona on Start; set it before Start. The NPC chooses among these only
        /// (<see cref="ActionRequested"/>).</summary>
        [NonSerialized]
        public List<GameAction> gameActions = new List<GameAction>();

        readonly List<Observation> pending = new List<Observation>();
        readonly CancellationTokenSource stopping = new CancellationTokenSource();
        NpcBrainClient client;
        bool busy;
        float nextThink;

        /// <summary>The NPC's action changed (also <see cref="CurrentAction"/>).</summary>
        public event Action<NpcAction> ActionChanged;

        /// <summary>A piece of the NPC's reply to <see cref="Say"/>, as it is generated.</summary>
        public event Action<string> ReplyUpdated;

        /// <summary>The NPC's whole reply to <see cref="Say"/>, as checked and stored.</summary>
        public event Action<Utterance> ReplyFinished;

        /// <summary>The NPC ended the conversation with its last reply.</summary>
        public event Action ConversationEnded;

        /// <summary>In its reply the NPC chose one of the game actions its persona's
        /// UpsertAgent declared (or those given to <see cref="Say"/>): do it, then call
        /// <see cref="ReportOutcome"/> with its ActionId.</summary>
        public event Action<ChosenAction> ActionRequested;

        /// <summary>The server has the NPC's persona now.</summary>
        public event Action<Agent> Registered;

        /// <summary>A request of this NPC failed (retries included): once per failure.</summary>
        public event Action<NpcBrainException> RequestFailed;

        /// <summary>The id the server knows the NPC by.</summary>
        public string AgentId
        {
            get { return string.IsNullOrEmpty(agentId) ? gameObject.name : agentId; }
        }

        /// <summary>The current action; null until the first answer.</summary>
        public NpcAction CurrentAction { get; private set; }

        /// <summary>Whether the server has the NPC's persona.</summary>
        public bool IsRegistered { get; private set; }

        /// <summary>Whether a request of this NPC is in flight.</summary>
        public bool IsBusy
        {
            get { return busy; }
        }

        /// <summary>Something the NPC perceived; sent with the next think.</summary>
        public void Observe(string text)
        {
            pending.Add(new Observation { Text = text });
        }

        /// <summary>An observation with its details (importance, source, privacy).</summary>
        public void Observe(Observation observation)
        {
            pending.Add(observation);
        }

        /// <summary>Perceives and decides now, unless a request is in flight (then false).</summary>
        public bool ThinkNow()
        {
            if (busy || !IsRegistered)
            {
                return false;
            }
            Think();
            return true;
        }

        /// <summary>Says a line to the NPC; false (and a warning) while a request of this
        /// NPC is in flight or it is not registered yet.</summary>
        public bool Say(string utterance, string speakerId = "player", List<GameAction> actions = null)
        {
            if (busy || !IsRegistered)
            {
                Debug.LogWarning("npc-brain: " + AgentId + " is busy; say it again when IsBusy is false");
                return false;
            }
            Talk(utterance, speakerId, actions ?? new List<GameAction>());
            return true;
        }

        /// <summary>Tells the NPC what became of an action it chose (ActionRequested):
        /// it remembers it ("sold a ration pack to player for 4 credits"). Safe to repeat.</summary>
        public async void ReportOutcome(string actionId, bool done, string detail = "")
        {
            try
            {
                var request = new ReportOutcomeRequest { AgentId = AgentId, ActionId = actionId, Done = done, Detail = detail, GameTime = Now() };
                await client.ReportOutcomeAsync(request, stopping.Token);
            }
            catch (NpcBrainException error)
            {
                Fail(error);
            }
            catch (OperationCanceledException)
            {
            }
        }

        DateTime Now()
        {
            return gameTimeSource != null ? gameTimeSource() : GameTime;
        }

        async void Start()
        {
            if (persona == null)
            {
                Debug.LogWarning("npc-brain: " + name + " has no persona; it will not think");
                return;
            }
            var key = serverUrl + "\n" + token + "\n" + worldId;
            if (!Clients.TryGetValue(key, out client))
            {
                client = new NpcBrainClient(new NpcBrainClientOptions { ServerUrl = serverUrl, Token = token, WorldId = worldId });
                Clients[key] = client;
            }
            busy = true;
            try
            {
                var request = new UpsertAgentRequest { AgentId = AgentId, Persona = persona.ToPersona(), GameTime = Now(), Actions = gameActions };
                var agent = await client.UpsertAgentAsync(request, stopping.Token);
                IsRegistered = true;
                Registered?.Invoke(agent);
            }
            catch (NpcBrainException error)
            {
                Fail(error);
            }
            catch (OperationCanceledException)
            {
            }
            finally
            {
                busy = false;
            }
        }

        void Update()
        {
            if (!thinking || busy || !IsRegistered || Time.time < nextThink)
            {
                return;
            }
            nextThink = Time.time + thinkInterval;
            Think();
        }

        void OnDestroy()
        {
            stopping.Cancel();
        }

        async void Think()
        {
            busy = true;
            var observations = new List<Observation>(pending);
            pending.Clear();
            if (observationSource != null)
            {
                foreach (var text in observationSource())
                {
                    observations.Add(new Observation { Text = text });
                }
            }
            try
            {
                var tick = new AgentTick { AgentId = AgentId, Observations = observations, VisibleAddresses = new List<string>(visibleAddresses) };
                var answer = await client.TickAsync(new TickRequest { GameTime = Now(), MaxWaitMs = 0, Agents = { tick } }, stopping.Token);
                foreach (var result in answer.Results)
                {
                    if (result.AgentId == AgentId && result.Action != null && !SameAction(result.Action, CurrentAction))
                    {
                        CurrentAction = result.Action;
                        ActionChanged?.Invoke(result.Action);
                        onActionChanged.Invoke(result.Action.Description);
                    }
                }
            }
            catch (NpcBrainException error)
            {
                Fail(error);  // its observations are not sent again: the server may have them
            }
            catch (OperationCanceledException)
            {
            }
            finally
            {
                busy = false;
            }
        }

        async void Talk(string utterance, string speakerId, List<GameAction> actions)
        {
            busy = true;
            try
            {
                var request = new ConverseRequest { AgentId = AgentId, GameTime = Now(), SpeakerId = speakerId, Utterance = utterance, Actions = actions };
                var reply = await client.ConverseAsync(request, piece => ReplyUpdated?.Invoke(piece), stopping.Token);
                ReplyFinished?.Invoke(reply);
                onReplyFinished.Invoke(reply.Text);
                if (reply.GameAction != null)
                {
                    ActionRequested?.Invoke(reply.GameAction);
                }
                if (reply.EndConversation)
                {
                    ConversationEnded?.Invoke();
                }
            }
            catch (NpcBrainException error)
            {
                Fail(error);
            }
            catch (OperationCanceledException)
            {
            }
            finally
            {
                busy = false;
            }
        }

        void Fail(NpcBrainException error)
        {
            Debug.LogWarning("npc-brain: " + AgentId + ": " + error);
            RequestFailed?.Invoke(error);
        }

        static bool SameAction(NpcAction a, NpcAction b)
        {
            return b != null && a.Description == b.Description && a.Address == b.Address && a.Start == b.Start
                && a.ChatWithAgentId == b.ChatWithAgentId && a.Chat.Count == b.Chat.Count;
        }
    }
}
#endif
