#if UNITY_2021_3_OR_NEWER
using System.Collections.Generic;
using UnityEngine;

namespace NpcBrain.Client.Unity
{
    /// <summary>
    /// Who an NPC is, edited in the inspector (Assets > Create > npc-brain > Persona) and
    /// sent to the server when its <see cref="NpcBrainAgent"/> starts (UpsertAgent, which
    /// is idempotent: edit the asset, restart the game, and the server has the new one).
    /// </summary>
    [CreateAssetMenu(menuName = "npc-brain/Persona", fileName = "NewPersona")]
    public class NpcPersonaAsset : ScriptableObject
    {
        [Tooltip("Full name, e.g. \"Bram Holt\". Required.")]
        public string personaName = "";

        [Tooltip("Age in years; 0 means unknown.")]
        public int age;

        [Tooltip("Innate traits, e.g. \"friendly, outgoing, hospitable\".")]
        public string innate = "";

        [TextArea(2, 6)]
        [Tooltip("Learned traits and background.")]
        public string learned = "";

        [TextArea(1, 4)]
        [Tooltip("What the NPC is busy with these days.")]
        public string currently = "";

        [Tooltip("Daily rhythm, e.g. \"wakes at 6, opens the forge at 7\".")]
        public string lifestyle = "";

        [Tooltip("Home in the world tree (world:sector:arena[:object]); a place it knows.")]
        public string homeAddress = "";

        [Tooltip("Things the NPC must do every day.")]
        public string[] dailyRequirements = new string[0];

        [Tooltip("How others speak of the NPC: he, she or they (empty: they).")]
        public string pronouns = "";

        /// <summary>The persona as the server's message.</summary>
        public Persona ToPersona()
        {
            return new Persona
            {
                Name = personaName,
                Age = age,
                Innate = innate,
                Learned = learned,
                Currently = currently,
                Lifestyle = lifestyle,
                HomeAddress = homeAddress,
                DailyRequirements = new List<string>(dailyRequirements ?? new string[0]),
                Pronouns = pronouns,
            };
        }
    }
}
#endif
